package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.FailClosedCircuits;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Creates a {@link RedisStreamListenerContainer} for every {@link RedisStreamListener} method once
 * the application context is refreshed, starts them, and stops them before the connection factory
 * goes away. Containers can be looked up by listener id, e.g. to stop one for maintenance.
 *
 * @since 0.1.0
 */
public class RedisStreamListenerRegistry implements SmartLifecycle {

	/** Phase: late start, early stop (as spring-kafka's listener containers). */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 100;

	private final RedisStreamListenerAnnotationBeanPostProcessor endpoints;

	private final RedisConnectionFactory connectionFactory;

	private final RedisStreamSettings settings;

	private final @Nullable RedisStreamPayloadConverter payloadConverter;

	private final Supplier<List<DeliveryListener>> listeners;

	private final @Nullable FailClosedCircuits circuits;

	private final Map<String, RedisStreamListenerContainer> containers = new LinkedHashMap<>();

	private volatile boolean running;

	/**
	 * Creates a registry.
	 * @param endpoints finds the listener methods
	 * @param connectionFactory the Redis of the streams (and of the idempotency store in
	 * redis-atomic mode)
	 * @param settings reading, recovery and dead-letter settings
	 * @param payloadConverter converts JSON payloads, or {@code null}
	 * @param listeners told about dead letters and, those that are {@link StreamConsumerListener}s,
	 * about claims, trimmed entries, group recreations and gauges
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link
	 * #RedisStreamListenerRegistry(RedisStreamListenerAnnotationBeanPostProcessor, RedisConnectionFactory,
	 * RedisStreamSettings, RedisStreamPayloadConverter, Supplier, FailClosedCircuits)} with {@code null} circuits
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public RedisStreamListenerRegistry(RedisStreamListenerAnnotationBeanPostProcessor endpoints,
			RedisConnectionFactory connectionFactory, RedisStreamSettings settings,
			@Nullable RedisStreamPayloadConverter payloadConverter, Supplier<List<DeliveryListener>> listeners) {
		this(endpoints, connectionFactory, settings, payloadConverter, listeners, null);
	}

	/**
	 * Creates a registry whose listeners fail closed.
	 * @param endpoints finds the listener methods
	 * @param connectionFactory the Redis of the streams (and of the idempotency store in
	 * redis-atomic mode)
	 * @param settings reading, recovery and dead-letter settings
	 * @param payloadConverter converts JSON payloads, or {@code null}
	 * @param listeners told about dead letters and, those that are {@link StreamConsumerListener}s,
	 * about claims, trimmed entries, group recreations and gauges
	 * @param circuits pause a listener on infrastructure failures, or {@code null} for fail-closed off
	 * @since 0.2.0
	 */
	public RedisStreamListenerRegistry(RedisStreamListenerAnnotationBeanPostProcessor endpoints,
			RedisConnectionFactory connectionFactory, RedisStreamSettings settings,
			@Nullable RedisStreamPayloadConverter payloadConverter, Supplier<List<DeliveryListener>> listeners,
			@Nullable FailClosedCircuits circuits) {
		this.endpoints = endpoints;
		this.connectionFactory = connectionFactory;
		this.settings = settings;
		this.payloadConverter = payloadConverter;
		this.listeners = listeners;
		this.circuits = circuits;
	}

	@Override
	public void start() {
		synchronized (this.containers) {
			for (RedisStreamListenerEndpoint endpoint : this.endpoints.getEndpoints()) {
				if (!this.containers.containsKey(endpoint.id())) {
					this.containers.put(endpoint.id(), new RedisStreamListenerContainer(endpoint, this.settings,
							this.connectionFactory, this.payloadConverter, this.listeners, this.circuits));
				}
				else if (this.containers.get(endpoint.id()).getEndpoint() != endpoint) {
					throw new IllegalStateException("Two @RedisStreamListener methods have the id '" + endpoint.id() + "'");
				}
			}
			this.containers.values().forEach(RedisStreamListenerContainer::start);
			this.running = true;
		}
	}

	@Override
	public void stop() {
		List<RedisStreamListenerContainer> toStop;
		synchronized (this.containers) {
			this.running = false;
			toStop = new ArrayList<>(this.containers.values());
		}
		toStop.parallelStream().forEach(RedisStreamListenerContainer::stop);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * The container of a listener.
	 * @param id the listener's id
	 * @return its container, or {@code null} before start or if there is none
	 */
	public @Nullable RedisStreamListenerContainer getListenerContainer(String id) {
		synchronized (this.containers) {
			return this.containers.get(id);
		}
	}

	/**
	 * The settings every container of this registry uses.
	 * @return the settings
	 */
	public RedisStreamSettings getSettings() {
		return this.settings;
	}

	/**
	 * Every container.
	 * @return the containers, in discovery order
	 */
	public Collection<RedisStreamListenerContainer> getListenerContainers() {
		synchronized (this.containers) {
			return List.copyOf(this.containers.values());
		}
	}

}
