package dev.idempotency.kafka.share;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.kafka.event.ConsumerStartedEvent;
import org.springframework.kafka.event.ShareConsumerStoppingEvent;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.ShareAckMode;
import org.springframework.kafka.listener.GenericMessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * Binds the adapter to every share-group container of the application's
 * {@code KafkaListenerEndpointRegistry} just before the registry starts them: wraps each
 * container's listener in a {@link ShareDeliveryDispatcher} and sets its recoverer to return the
 * dispatcher's decisions. spring-kafka's share containers have no record interceptor, so the
 * listener is the one place that sees every record with its consumer and acknowledgement. Reads
 * the broker's delivery-attempt limit first. Containers in {@code ShareAckMode.IMPLICIT} are left
 * alone: the broker accepts their records whatever happens ({@link ImplicitShareAckVerifier}
 * refuses {@code @Idempotent} on them).
 * <p>
 * It also follows the containers' consumer threads (their started and stopping events, published
 * on the consumer thread) for the pauses, and the application context's close: a record held in
 * place through an outage is held until the store answers or the application closes, not merely
 * until its container stops.
 *
 * @since 0.2.0
 */
public final class ShareListenerContainers
		implements SmartLifecycle, SmartApplicationListener, ApplicationContextAware {

	private static final Log logger = LogFactory.getLog(ShareListenerContainers.class);

	private final Supplier<? extends Collection<? extends MessageListenerContainer>> containers;

	private final ShareFailurePolicy policy;

	private final ShareLockRenewal renewal;

	private final @Nullable FailClosedCircuits circuits;

	private final ShareDeliveryAttempts attempts;

	private final ShareDeliveryDispatcher.ShareEvents events;

	private final Map<Object, ShareFetchPause> pauses = new ConcurrentHashMap<>();

	private @Nullable ApplicationContext context;

	private volatile boolean running;

	/** Set when the application context closes, before any lifecycle stops. */
	private volatile boolean closing;

	/**
	 * Creates the binding.
	 * @param containers the application's listener containers (the registry's)
	 * @param policy what becomes of a failed record
	 * @param renewal the lock renewal while a method runs
	 * @param circuits fail-closed's circuits, or {@code null} when fail-closed is off
	 * @param attempts the delivery-attempt limit, resolved on start
	 * @param listeners told how records were settled
	 */
	public ShareListenerContainers(Supplier<? extends Collection<? extends MessageListenerContainer>> containers,
			ShareFailurePolicy policy, ShareLockRenewal renewal, @Nullable FailClosedCircuits circuits,
			ShareDeliveryAttempts attempts, Supplier<? extends List<? extends DeliveryListener>> listeners) {
		this.containers = containers;
		this.policy = policy;
		this.renewal = renewal;
		this.circuits = circuits;
		this.attempts = attempts;
		this.events = ShareDeliveryDispatcher.ShareEvents.of(listeners);
	}

	@Override
	public void start() {
		List<ShareKafkaMessageListenerContainer<?, ?>> shared = this.containers.get()
			.stream()
			.filter(ShareKafkaMessageListenerContainer.class::isInstance)
			.<ShareKafkaMessageListenerContainer<?, ?>>map(ShareKafkaMessageListenerContainer.class::cast)
			.filter((container) -> container.getContainerProperties().getShareAckMode() != ShareAckMode.IMPLICIT)
			.toList();
		if (!shared.isEmpty()) {
			this.attempts.resolve();
		}
		this.running = true;
		shared.forEach(this::bind);
	}

	private void bind(ShareKafkaMessageListenerContainer<?, ?> container) {
		ContainerProperties properties = container.getContainerProperties();
		if (!(properties.getMessageListener() instanceof GenericMessageListener<?> listener)
				|| listener instanceof ShareDeliveryDispatcher) {
			return;
		}
		String id = String.valueOf(container.getListenerId());
		// A container already started (another lifecycle started it first) takes the listener on restart:
		// spring-kafka's share factory has no container customizer and a container reads its listener on start
		boolean restart = container.isRunning();
		if (restart) {
			container.stop();
		}
		ShareFetchPause pause = (this.circuits != null)
				? new ShareFetchPause(container, this.circuits.circuit(id), this::isActive) : null;
		if (pause != null) {
			this.pauses.put(container, pause);
		}
		String group = container.getGroupId();
		properties.setMessageListener(new ShareDeliveryDispatcher(listener, (group != null) ? group : id, this.policy,
				this.renewal, pause, this.events, this::isActive));
		container.setShareConsumerRecordRecoverer(new ShareDecisionRecoverer());
		if (restart) {
			container.start();
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Share listener '" + id + "' of group '" + group + "': records are dead-lettered at delivery "
					+ this.attempts.limit());
		}
	}

	private boolean isActive() {
		return this.running && !this.closing;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ContextClosedEvent.class.isAssignableFrom(eventType)
				|| ConsumerStartedEvent.class.isAssignableFrom(eventType)
				|| ShareConsumerStoppingEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ContextClosedEvent closed) {
			// A child context's close reaches this context's listeners too
			if (closed.getApplicationContext() == this.context) {
				this.closing = true;
			}
			return;
		}
		ShareFetchPause pause = this.pauses.get(event.getSource());
		if (pause == null) {
			return;
		}
		if (event instanceof ConsumerStartedEvent) {
			pause.consumerStarted(Thread.currentThread());
		}
		else {
			pause.consumerStopping(Thread.currentThread());
		}
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Before every other lifecycle: spring-kafka's {@code ShareKafkaListenerContainerFactory} gives its
	 * containers phase 0 unless told otherwise, and the registry then starts all its containers in
	 * that phase. A container started before its listener is wrapped hands records to the bare
	 * listener, without the delivery context (another namespace: a duplicate is applied again) until
	 * the restart below.
	 */
	@Override
	public int getPhase() {
		return Integer.MIN_VALUE;
	}

}
