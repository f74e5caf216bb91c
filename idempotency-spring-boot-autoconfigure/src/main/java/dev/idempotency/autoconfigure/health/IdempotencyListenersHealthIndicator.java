package dev.idempotency.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.idempotency.support.FailClosedCircuit;
import dev.idempotency.support.FailClosedCircuits;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.core.NestedExceptionUtils;

/**
 * Health of the listeners that fail-closed pauses while the infrastructure is down. A paused listener
 * is the starter working as designed: it holds its delivery, probes the store and resumes by itself,
 * and nothing is lost or dead-lettered meanwhile. So the indicator is UP while no listener has been
 * paused for longer than the threshold, listing the paused ones in the details, and DOWN once one
 * has: an outage that long needs someone to look.
 * <p>
 * Details: {@code paused} (the ids of the paused listeners, sorted) and, per paused listener under
 * {@code listeners}, {@code since} (when it paused), {@code pausedFor} (milliseconds) and
 * {@code cause} (the class of the infrastructure failure's root cause; its message is left out, as
 * it may name hosts or contain a statement).
 *
 * @since 0.2.0
 */
public class IdempotencyListenersHealthIndicator implements HealthIndicator {

	private final FailClosedCircuits circuits;

	private final Duration pausedThreshold;

	private final Clock clock;

	/**
	 * Creates the indicator.
	 * @param circuits the listeners' fail-closed circuits
	 * @param pausedThreshold how long a listener may be paused and the indicator still UP
	 */
	public IdempotencyListenersHealthIndicator(FailClosedCircuits circuits, Duration pausedThreshold) {
		this(circuits, pausedThreshold, Clock.systemUTC());
	}

	IdempotencyListenersHealthIndicator(FailClosedCircuits circuits, Duration pausedThreshold, Clock clock) {
		this.circuits = circuits;
		this.pausedThreshold = pausedThreshold;
		this.clock = clock;
	}

	@Override
	public Health health() {
		Instant now = this.clock.instant();
		List<String> paused = new ArrayList<>();
		Map<String, Object> listeners = new LinkedHashMap<>();
		boolean tooLong = false;
		for (Map.Entry<String, FailClosedCircuit> entry : new TreeMap<>(this.circuits.circuits()).entrySet()) {
			FailClosedCircuit circuit = entry.getValue();
			if (!circuit.isOpen()) {
				continue;
			}
			Duration pausedFor = circuit.pausedFor();
			paused.add(entry.getKey());
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("since", now.minus(pausedFor).toString());
			details.put("pausedFor", pausedFor.toMillis());
			Throwable cause = circuit.cause();
			if (cause != null) {
				details.put("cause", NestedExceptionUtils.getMostSpecificCause(cause).getClass().getName());
			}
			listeners.put(entry.getKey(), details);
			tooLong |= pausedFor.compareTo(this.pausedThreshold) > 0;
		}
		Health.Builder builder = tooLong ? Health.down() : Health.up();
		builder.withDetail("paused", paused).withDetail("pausedThreshold", this.pausedThreshold.toMillis());
		if (!listeners.isEmpty()) {
			builder.withDetail("listeners", listeners);
		}
		return builder.build();
	}

}
