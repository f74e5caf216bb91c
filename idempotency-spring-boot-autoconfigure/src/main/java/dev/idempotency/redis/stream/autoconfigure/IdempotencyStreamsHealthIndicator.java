package dev.idempotency.redis.stream.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.redis.stream.RedisStreamListenerContainer;
import dev.idempotency.redis.stream.RedisStreamListenerEndpoint;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.StreamConsumerListener;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Health of the Redis Stream listeners' subscriptions. A running listener container whose reading
 * subscriptions ({@link RedisStreamListenerContainer#getActiveSubscriptions()}: Redis answered their
 * last read and no read failed since; a new subscription, or one reconnecting or waiting for Redis
 * after a failed read, does not read) are fewer than its consumers is inactive from the first time
 * that is seen; once it has been inactive for longer than the threshold, the indicator is DOWN.
 * A container that was stopped on purpose is reported, not held against the health.
 * <p>
 * The moment a subscription turns inactive is learnt from the containers' own reports
 * ({@link StreamConsumerListener#onStreamSubscriptions}, sent whenever the number of reading
 * subscriptions changes) and, for containers that never got to read, from the context's refresh
 * (when they have just been started), so the threshold counts from the failure or the start, not
 * from the first health request after it; each health request also looks at the containers itself.
 * <p>
 * A container counts as reading again only once all its subscriptions have read for the threshold
 * without turning inactive in between; until then its inactive time stands still, and a relapse goes
 * on counting from the first failure. Reconnect attempts never count as reading, but a Redis that
 * answers now and then (a flapping network) does: without this, each answered read would restart
 * the clock and such an outage would never be reported.
 * <p>
 * Details, per listener id under {@code listeners}: {@code stream}, {@code group}, {@code consumers},
 * {@code active}, {@code running} and, until the container counts as reading again,
 * {@code inactiveFor} (milliseconds).
 *
 * @since 0.2.0
 */
public class IdempotencyStreamsHealthIndicator
		implements HealthIndicator, StreamConsumerListener, ApplicationListener<ContextRefreshedEvent> {

	private final RedisStreamListenerRegistry registry;

	private final Duration inactiveThreshold;

	/** Containers seen inactive and not yet reading again for the threshold, by listener id. */
	private final Map<String, Outage> outages = new ConcurrentHashMap<>();

	/**
	 * Creates the indicator.
	 * @param registry the Redis Stream listener containers
	 * @param inactiveThreshold how long subscriptions may be inactive and the indicator still UP
	 */
	public IdempotencyStreamsHealthIndicator(RedisStreamListenerRegistry registry, Duration inactiveThreshold) {
		this.registry = registry;
		this.inactiveThreshold = inactiveThreshold;
	}

	/**
	 * Starts the clock of the containers the refresh just started and that do not read yet.
	 */
	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		this.registry.getListenerContainers().forEach(this::sample);
	}

	@Override
	public void onStreamSubscriptions(String stream, String group, int active) {
		for (RedisStreamListenerContainer container : this.registry.getListenerContainers()) {
			RedisStreamListenerEndpoint endpoint = container.getEndpoint();
			if (endpoint.stream().equals(stream) && endpoint.group().equals(group)) {
				sample(container);
			}
		}
	}

	@Override
	public Health health() {
		boolean down = false;
		Map<String, Object> listeners = new LinkedHashMap<>();
		for (RedisStreamListenerContainer container : this.registry.getListenerContainers()) {
			RedisStreamListenerEndpoint endpoint = container.getEndpoint();
			int active = sample(container);
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("stream", endpoint.stream());
			details.put("group", endpoint.group());
			details.put("consumers", container.getConsumerNames().size());
			details.put("active", active);
			details.put("running", container.isRunning());
			Outage outage = this.outages.get(endpoint.id());
			if (outage != null) {
				Duration inactiveFor = outage.inactiveFor(System.nanoTime());
				details.put("inactiveFor", inactiveFor.toMillis());
				down |= inactiveFor.compareTo(this.inactiveThreshold) > 0;
			}
			listeners.put(endpoint.id(), details);
		}
		return (down ? Health.down() : Health.up()).withDetail("listeners", listeners)
			.withDetail("inactiveThreshold", this.inactiveThreshold.toMillis())
			.build();
	}

	/**
	 * Records whether a container reads with all its consumers.
	 * @return its reading subscriptions
	 */
	private int sample(RedisStreamListenerContainer container) {
		String id = container.getEndpoint().id();
		int active = container.getActiveSubscriptions();
		long now = System.nanoTime();
		if (!container.isRunning()) {
			this.outages.remove(id);
		}
		else if (active < container.getConsumerNames().size()) {
			this.outages.computeIfAbsent(id, (key) -> new Outage(now)).inactive();
		}
		else {
			this.outages.computeIfPresent(id,
					(key, outage) -> outage.reading(now, this.inactiveThreshold.toNanos()) ? null : outage);
		}
		return active;
	}

	/** One container's inactive time, in {@code System.nanoTime()} units. */
	private static final class Outage {

		private final long inactiveSince;

		/** When all subscriptions were last seen reading after being inactive; 0 while inactive. */
		private volatile long readingSince;

		Outage(long inactiveSince) {
			this.inactiveSince = inactiveSince;
		}

		void inactive() {
			this.readingSince = 0;
		}

		/**
		 * Records that all subscriptions read.
		 * @return whether they have read for long enough to end the outage
		 */
		boolean reading(long now, long recovery) {
			if (this.readingSince == 0) {
				this.readingSince = now;
				return false;
			}
			return now - this.readingSince >= recovery;
		}

		Duration inactiveFor(long now) {
			long readingSince = this.readingSince;
			return Duration.ofNanos(((readingSince != 0) ? readingSince : now) - this.inactiveSince);
		}

	}

}
