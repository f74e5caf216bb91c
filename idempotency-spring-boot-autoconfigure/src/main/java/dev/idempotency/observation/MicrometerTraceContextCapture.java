package dev.idempotency.observation;

import java.util.HashMap;
import java.util.Map;

import dev.idempotency.core.MessageFields;
import dev.idempotency.core.TraceContextCapture;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Captures the current span of a Micrometer {@link Tracer} as a W3C {@code traceparent}: the one
 * the application's {@link Propagator} writes when it writes W3C headers, otherwise one formatted
 * from the span's ids (so that Brave with B3 propagation still yields a {@code traceparent}).
 *
 * @since 0.2.0
 */
public class MicrometerTraceContextCapture implements TraceContextCapture {

	private static final Log logger = LogFactory.getLog(MicrometerTraceContextCapture.class);

	private static final int LENGTH = 55;

	private final @Nullable Tracer tracer;

	private final @Nullable Propagator propagator;

	/**
	 * Creates a capture.
	 * @param tracer the tracer, or {@code null} to capture nothing
	 * @param propagator the application's propagator, or {@code null} to format from the ids
	 */
	public MicrometerTraceContextCapture(@Nullable Tracer tracer, @Nullable Propagator propagator) {
		this.tracer = tracer;
		this.propagator = propagator;
	}

	@Override
	public @Nullable String traceparent() {
		try {
			Tracer tracer = this.tracer;
			Span span = (tracer != null) ? tracer.currentSpan() : null;
			if (span == null || span.isNoop()) {
				return null;
			}
			TraceContext context = span.context();
			Propagator propagator = this.propagator;
			if (propagator != null) {
				Map<String, String> carrier = new HashMap<>();
				propagator.inject(context, carrier, Map::put);
				String injected = carrier.get(MessageFields.TRACEPARENT);
				if (isValid(injected)) {
					return injected;
				}
			}
			return format(context);
		}
		catch (RuntimeException ex) {
			// Tracing must never fail a business transaction.
			logger.debug("Could not capture the current trace context", ex);
			return null;
		}
	}

	/**
	 * Formats a {@code traceparent} from a context's ids; 64-bit trace ids are padded to 128 bits.
	 * @param context the context
	 * @return the {@code traceparent}, or {@code null} when the ids are not hexadecimal or all zero
	 */
	static @Nullable String format(TraceContext context) {
		String traceId = pad(context.traceId(), 32);
		String spanId = pad(context.spanId(), 16);
		if (traceId == null || spanId == null) {
			return null;
		}
		String flags = Boolean.TRUE.equals(context.sampled()) ? "01" : "00";
		return "00-" + traceId + "-" + spanId + "-" + flags;
	}

	private static @Nullable String pad(@Nullable String id, int length) {
		if (id == null || id.isEmpty() || id.length() > length || !isHex(id) || id.chars().allMatch((c) -> c == '0')) {
			return null;
		}
		return "0".repeat(length - id.length()) + id;
	}

	private static boolean isHex(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

	private static boolean isValid(@Nullable String traceparent) {
		return traceparent != null && traceparent.length() == LENGTH && traceparent.startsWith("00-");
	}

}
