package dev.idempotency.rabbit;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.listener.adapter.HandlerAdapter;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.rabbit.listener.adapter.BatchMessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Adapts the {@code @RabbitListener} containers that invoke {@code @Idempotent} methods, once, just
 * before the endpoint registry starts them: each is switched to manual acknowledgement and its
 * listener wrapped in an {@link IdempotentRabbitListener}, which binds the delivery context,
 * acknowledges after commit, retries, dead-letters and holds through outages. Containers of other
 * listeners are left as they are.
 * <p>
 * Per container, because the acknowledgement mode is the container's: Spring Boot's
 * {@code ContainerCustomizer} is applied only when it is the application's only one, and a
 * factory's advice chain does not know which container (and so which mode) it runs in. Fails
 * start-up for a container that cannot keep the guarantee: acknowledgement mode {@code NONE} (the
 * broker forgets a message as it sends it) or a batch listener.
 *
 * @since 0.2.0
 */
public final class RabbitListenerContainers implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RabbitListenerContainers.class);

	private final Supplier<RabbitListenerEndpointRegistry> registry;

	private final RabbitDeliveryContexts contexts;

	private final RabbitFailurePolicy policy;

	private final RabbitDeadLetters deadLetters;

	private final @Nullable FailClosedCircuits circuits;

	private final List<AbstractMessageListenerContainer> adapted = new ArrayList<>();

	private volatile boolean running;

	/**
	 * Creates the adapter of the registry's containers.
	 * @param registry the {@code @RabbitListener} endpoint registry, asked for when this starts: a
	 * lifecycle bean's dependencies start before it, and the registry must start after
	 * @param contexts describes deliveries
	 * @param policy retry and dead-letter decisions
	 * @param deadLetters gives deliveries up
	 * @param circuits fail-closed, or {@code null} when it is off
	 */
	public RabbitListenerContainers(Supplier<RabbitListenerEndpointRegistry> registry, RabbitDeliveryContexts contexts,
			RabbitFailurePolicy policy, RabbitDeadLetters deadLetters, @Nullable FailClosedCircuits circuits) {
		this.registry = registry;
		this.contexts = contexts;
		this.policy = policy;
		this.deadLetters = deadLetters;
		this.circuits = circuits;
	}

	@Override
	public void start() {
		for (MessageListenerContainer container : this.registry.get().getListenerContainers()) {
			if (container instanceof AbstractMessageListenerContainer listenerContainer) {
				adapt(listenerContainer);
			}
		}
		this.running = true;
	}

	private synchronized void adapt(AbstractMessageListenerContainer container) {
		if (!(container.getMessageListener() instanceof MessagingMessageListenerAdapter listener)
				|| !hostsIdempotentMethod(listener)) {
			return;
		}
		String id = listenerId(container);
		if (listener instanceof BatchMessagingMessageListenerAdapter) {
			throw new IllegalStateException("The @RabbitListener '" + id + "' receives batches and has @Idempotent "
					+ "methods: the RabbitMQ adapter deduplicates single messages only; remove batch = \"true\" "
					+ "(and the factory's batch listener or consumer batch setting)");
		}
		if (container.getAcknowledgeMode() == AcknowledgeMode.NONE) {
			throw new IllegalStateException("The @RabbitListener '" + id + "' has @Idempotent methods and "
					+ "acknowledge mode NONE: the broker forgets each message as it sends it, so a failure or a "
					+ "crash before the commit loses it. Remove spring.rabbitmq.listener.simple.acknowledge-mode=none "
					+ "(or ackMode = \"NONE\" on the annotation, or the factory's setting): the starter switches the "
					+ "container to MANUAL and acknowledges after the commit");
		}
		container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
		IdempotentRabbitListener wrapper = new IdempotentRabbitListener(listener, id, container::isRunning,
				this.contexts, this.policy, this.deadLetters, this.circuits);
		wrapper.containerAckMode(AcknowledgeMode.MANUAL);
		container.setMessageListener(wrapper);
		this.adapted.add(container);
		for (String queue : container.getQueueNames()) {
			if (this.deadLetters.routeOf(queue) == null) {
				logger.warn("Queue '" + queue + "' of @RabbitListener '" + id + "' has no dead-letter exchange this "
						+ "application knows of: its dead letters are rejected to the broker without their cause. "
						+ "Declare the queue as a bean with x-dead-letter-exchange, or set "
						+ "idempotency.rabbit.dead-letter.exchange");
			}
		}
	}

	/**
	 * The containers adapted so far.
	 * @return the containers that deliver to {@code @Idempotent} methods
	 */
	public synchronized List<AbstractMessageListenerContainer> adaptedContainers() {
		return List.copyOf(this.adapted);
	}

	/**
	 * The id a container's circuit and log lines are named by.
	 * @param container the container
	 * @return its listener id ({@code @RabbitListener(id)} or the generated one)
	 */
	static String listenerId(AbstractMessageListenerContainer container) {
		String id = container.getListenerId();
		return (id != null) ? id : String.join(",", container.getQueueNames());
	}

	private static boolean hostsIdempotentMethod(MessagingMessageListenerAdapter listener) {
		HandlerAdapter handler = handlerAdapter(listener);
		if (handler == null) {
			return false;
		}
		Class<?> target = AopUtils.getTargetClass(handler.getBean());
		Method method = null;
		try {
			method = handler.getMethod();
		}
		catch (RuntimeException ex) {
			// A class-level @RabbitListener: its @RabbitHandler methods are looked at below.
		}
		if (method != null) {
			return AnnotatedElementUtils.hasAnnotation(AopUtils.getMostSpecificMethod(method, target),
					Idempotent.class);
		}
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(target)) {
			if (AnnotatedElementUtils.hasAnnotation(candidate, Idempotent.class)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The adapter's handler: Spring AMQP keeps its getter protected, and no public API links a
	 * container to its {@code @RabbitListener} method (the registrar keeps its endpoints to itself).
	 */
	private static @Nullable HandlerAdapter handlerAdapter(MessageListener listener) {
		Method getter = ReflectionUtils.findMethod(MessagingMessageListenerAdapter.class, "getHandlerAdapter");
		if (getter == null) {
			throw new IllegalStateException("This version of Spring AMQP has no MessagingMessageListenerAdapter"
					+ "#getHandlerAdapter(): the RabbitMQ adapter cannot find the @Idempotent listeners");
		}
		ReflectionUtils.makeAccessible(getter);
		return (HandlerAdapter) ReflectionUtils.invokeMethod(getter, listener);
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Just before the endpoint registry, which starts the containers. */
	@Override
	public int getPhase() {
		return this.registry.get().getPhase() - 1;
	}

}
