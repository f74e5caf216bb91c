package dev.idempotency.testsupport;

import java.util.List;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;

/**
 * A W3C {@code traceparent} propagator for Micrometer's {@link SimpleTracer}, which has none: what
 * the OpenTelemetry bridge (or Brave with W3C propagation) does in an application, reduced to the
 * trace and span ids. Trace ids are padded to 128 bits when sent and unpadded when received, so
 * that the receiver's trace id equals the sender's.
 */
public final class W3cSimplePropagator implements Propagator {

	private static final String TRACEPARENT = "traceparent";

	private static final String PADDING = "0000000000000000";

	private final SimpleTracer tracer;

	public W3cSimplePropagator(SimpleTracer tracer) {
		this.tracer = tracer;
	}

	@Override
	public List<String> fields() {
		return List.of(TRACEPARENT);
	}

	@Override
	public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
		// SimpleTracer's trace ids have 64 bits: padded to W3C's 128, as Brave does.
		setter.set(carrier, TRACEPARENT, "00-" + PADDING + context.traceId() + "-" + context.spanId() + "-01");
	}

	@Override
	public <C> Span.Builder extract(C carrier, Getter<C> getter) {
		String traceparent = getter.get(carrier, TRACEPARENT);
		if (traceparent == null) {
			return this.tracer.spanBuilder();
		}
		String[] parts = traceparent.split("-");
		TraceContext parent = this.tracer.traceContextBuilder()
			.traceId(parts[1].startsWith(PADDING) ? parts[1].substring(PADDING.length()) : parts[1])
			.spanId(parts[2])
			.sampled(true)
			.build();
		return this.tracer.spanBuilder().setParent(parent);
	}

}
