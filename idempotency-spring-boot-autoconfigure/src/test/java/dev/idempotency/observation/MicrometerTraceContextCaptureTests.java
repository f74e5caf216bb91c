package dev.idempotency.observation;

import dev.idempotency.testsupport.W3cSimplePropagator;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MicrometerTraceContextCapture}: the current span as a W3C {@code traceparent},
 * from the application's propagator or formatted from the ids, and nothing without a span.
 */
class MicrometerTraceContextCaptureTests {

	private final SimpleTracer tracer = new SimpleTracer();

	@Test
	void nothingIsCapturedWithoutACurrentSpan() {
		assertThat(new MicrometerTraceContextCapture(this.tracer, null).traceparent()).isNull();
		assertThat(new MicrometerTraceContextCapture(null, null).traceparent()).isNull();
		assertThat(new MicrometerTraceContextCapture(Tracer.NOOP, Propagator.NOOP).traceparent()).isNull();
	}

	@Test
	void propagatorsTraceparentIsCaptured() {
		SimpleSpan span = this.tracer.nextSpan().name("publish").start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(span)) {
			String traceparent = new MicrometerTraceContextCapture(this.tracer, new W3cSimplePropagator(this.tracer))
				.traceparent();
			assertThat(traceparent)
				.isEqualTo("00-0000000000000000" + span.context().traceId() + "-" + span.context().spanId() + "-01");
		}
		finally {
			span.end();
		}
	}

	@Test
	void withoutAW3cPropagatorTheTraceparentIsFormattedFromTheIds() {
		Span span = this.tracer.spanBuilder()
			.setParent(this.tracer.traceContextBuilder()
				.traceId("463ac35c9f6413ad")
				.spanId("a2fb4a1d1a96d312")
				.sampled(false)
				.build())
			.start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(span)) {
			String traceparent = new MicrometerTraceContextCapture(this.tracer, Propagator.NOOP).traceparent();
			assertThat(traceparent).matches("00-0000000000000000463ac35c9f6413ad-[0-9a-f]{16}-0[01]");
			assertThat(traceparent).hasSize(55);
		}
		finally {
			span.end();
		}
	}

}
