package dev.idempotency.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the demo run. {@code demo.enabled} (in application.yml) switches the run on.
 *
 * @param orders distinct valid orders to publish
 * @param duplicateRatio extra re-sends of already published orders (same order id, new message id),
 * as a share of {@code orders}: 0.2 re-sends 200 of 1000
 * @param poisonOrders orders with negative points; the credit throws every time, so they are retried
 * and then dead-lettered
 * @param invalidOrders orders without an order id; the key is rejected, not retried, dead-lettered
 * @param malformedMessages messages that are not JSON; they fail deserialization and are
 * dead-lettered without reaching the listener
 * @param users distinct customers the orders are spread over
 * @param partitions partitions of the {@code orders} topic (and listener threads); records are
 * keyed by user id, so one user's orders stay in order
 * @param seed seed of the random order generator, so runs are repeatable
 * @param drainTimeout how long the runner waits, in all, for the consumers to be ready and to catch up
 * @param keepRunning whether the application stays up after the report (read by {@code main})
 * @param redisStream the Redis Stream flow
 * @param rabbit the RabbitMQ flow
 * @param kafkaShare the Kafka share-group flow
 * @param payments the payments flow
 */
@ConfigurationProperties("demo")
public record DemoProperties(@DefaultValue("1000") int orders, @DefaultValue("0.2") double duplicateRatio,
		@DefaultValue("2") int poisonOrders, @DefaultValue("1") int invalidOrders,
		@DefaultValue("1") int malformedMessages, @DefaultValue("50") int users, @DefaultValue("3") int partitions,
		@DefaultValue("42") long seed, @DefaultValue("120s") Duration drainTimeout,
		@DefaultValue("false") boolean keepRunning, @DefaultValue RedisStream redisStream,
		@DefaultValue Rabbit rabbit, @DefaultValue KafkaShare kafkaShare, @DefaultValue Payments payments) {

	/**
	 * The Redis Stream flow. {@link RedisStreamDemoInitializer} fills in what is not set.
	 *
	 * @param enabled whether the orders also go through a Redis Stream; unset means "if Redis
	 * answers on {@code spring.data.redis.*} at start-up"
	 * @param stream the stream key; unset means a new {@code demo-orders-<random>} per run, so runs
	 * sharing a Redis do not read each other's entries
	 */
	public record RedisStream(@Nullable Boolean enabled, @Nullable String stream) {

	}

	/**
	 * The RabbitMQ flow. {@link RabbitDemoInitializer} fills in what is not set.
	 *
	 * @param enabled whether the orders also go through RabbitMQ; unset means "if RabbitMQ answers on
	 * {@code spring.rabbitmq.host}/{@code port} at start-up"
	 * @param queue the queue; unset means a new {@code demo-orders-<random>} per run (its exchange,
	 * dead-letter exchange and dead-letter queue are named after it)
	 */
	public record Rabbit(@Nullable Boolean enabled, @Nullable String queue) {

	}

	/**
	 * The Kafka share-group flow. {@link EmbeddedKafkaInitializer} fills in what is not set.
	 *
	 * @param enabled whether the orders also go through a Kafka share group; unset means "if the demo
	 * runs its in-process broker" (which has share groups on)
	 * @param consumers share consumers of the group (listener threads)
	 */
	public record KafkaShare(@Nullable Boolean enabled, @DefaultValue("2") int consumers) {

	}

	/**
	 * The payments flow: leased mode, an HTTP call to a payment provider stub, a reconciler.
	 *
	 * @param count distinct payments to request
	 * @param duplicateRatio extra requests of already requested payments, as a share of
	 * {@code count}
	 * @param crashedClaims whether to leave two claims as crashed runs would before the requests are
	 * sent (one after its charge, one before), for the reconciler to settle
	 */
	public record Payments(@DefaultValue("100") int count, @DefaultValue("0.2") double duplicateRatio,
			@DefaultValue("true") boolean crashedClaims) {

	}

}
