package dev.idempotency.kafka.share;

import java.util.List;
import java.util.Map;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.kafka.KafkaDeliveryContextInterceptor;
import dev.idempotency.kafka.share.ShareDecision.Reason;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.listener.AcknowledgingShareConsumerAwareMessageListener;
import org.springframework.kafka.listener.GenericMessageListener;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.support.ShareAcknowledgment;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;

/**
 * Wraps the listener of one share-group container: binds each record to the delivery context
 * (the message id as the Kafka adapter derives it, the share group as the namespace, {@code #record}
 * and {@code #headers}; with {@code ShareAckMode.MANUAL}, its {@code ShareAcknowledgment} as the
 * acknowledger the engine calls after commit), renews the record's lock while the method runs, and
 * turns a failure into a {@link ShareDecision} for the container's recoverer. A record that the
 * client hands back after a renewal (see {@link ShareLockRenewal}) is settled as it was decided
 * before, without running the method again.
 *
 * @since 0.2.0
 */
final class ShareDeliveryDispatcher implements AcknowledgingShareConsumerAwareMessageListener<Object, Object> {

	private static final Log logger = LogFactory.getLog(ShareDeliveryDispatcher.class);

	private static final int REMEMBERED_DECISIONS = 1024;

	private static final LogAccessor HEADER_LOGGER = new LogAccessor(ShareDeliveryDispatcher.class);

	private final GenericMessageListener<?> delegate;

	private final String group;

	private final ShareFailurePolicy policy;

	private final ShareLockRenewal renewal;

	private final @Nullable ShareFetchPause pause;

	private final ShareEvents events;

	private final BooleanSupplier running;

	/**
	 * Decisions about renewed records the client may hand back, by topic-partition@offset#delivery
	 * (a hand-back keeps its delivery count, a redelivery does not); the oldest are forgotten.
	 */
	private final Map<String, ShareDecision> decidedBeforeRenewal = Collections
		.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, ShareDecision> eldest) {
				return size() > REMEMBERED_DECISIONS;
			}

		});

	ShareDeliveryDispatcher(GenericMessageListener<?> delegate, String group, ShareFailurePolicy policy,
			ShareLockRenewal renewal, @Nullable ShareFetchPause pause, ShareEvents events, BooleanSupplier running) {
		this.delegate = delegate;
		this.group = group;
		this.policy = policy;
		this.renewal = renewal;
		this.pause = pause;
		this.events = events;
		this.running = running;
	}

	GenericMessageListener<?> delegate() {
		return this.delegate;
	}

	@Override
	public void onShareRecord(ConsumerRecord<Object, Object> record, @Nullable ShareAcknowledgment acknowledgment,
			ShareConsumer<?, ?> consumer) {
		if (this.pause == null) {
			dispatch(record, acknowledgment, consumer);
			return;
		}
		this.pause.enteredListener();
		try {
			dispatch(record, acknowledgment, consumer);
		}
		finally {
			this.pause.leftListener();
		}
	}

	private void dispatch(ConsumerRecord<Object, Object> record, @Nullable ShareAcknowledgment acknowledgment,
			ShareConsumer<?, ?> consumer) {
		ShareDecision decided = this.decidedBeforeRenewal.remove(key(record));
		if (decided != null) {
			settle(acknowledgment, decided);
			return;
		}
		boolean renewed = false;
		if (this.pause != null && this.pause.isPaused()) {
			if (!this.policy.isLastAttempt(record)) {
				this.pause.awaitNoConsumerPolling(this.running);
				ShareDecision paused = new ShareDecision(AcknowledgeType.RELEASE, Reason.PAUSED);
				this.events.acknowledged(this.group, paused);
				settle(acknowledgment, paused);
				return;
			}
			// Released now, the broker would archive a valid record: hold it until the store answers, then
			// run it (also when the application stops meanwhile: the failure path below then releases it)
			renewed = true;
			waitInPlace(record, consumer, this.pause);
		}
		while (true) {
			ShareLockRenewal.Renewal renewal = this.renewal.start(record, consumer, () -> this.events
				.acknowledged(this.group, new ShareDecision(AcknowledgeType.RENEW, Reason.LONG_RUNNING)));
			try {
				rejectUnreadable(record);
				DeliveryContextHolder.set(KafkaDeliveryContextInterceptor.deliveryOf(record, this.group,
						(acknowledgment != null) ? acknowledgment::acknowledge : null));
				invoke(record, acknowledgment, consumer);
				renewal.close();
				gotThrough();
				ShareDecision accepted = new ShareDecision(AcknowledgeType.ACCEPT, Reason.PROCESSED);
				this.events.acknowledged(this.group, accepted);
				if (renewed || renewal.wasRenewed()) {
					settleRenewed(record, renewal, accepted);
				}
				return;
			}
			catch (RuntimeException ex) {
				renewal.close();
				renewed |= renewal.wasRenewed();
				if (this.policy.isOutage(ex) && this.pause != null && this.policy.isLastAttempt(record)) {
					// A release now would let the broker archive a valid record: hold it, wait for the store
					renewed = true;
					this.pause.circuit().open(ex);
					if (waitInPlace(record, consumer, this.pause)) {
						continue;
					}
				}
				ShareDecision decision = decide(record, ex);
				if (decision.reason() == Reason.OUTAGE && this.pause != null) {
					this.pause.awaitNoConsumerPolling(this.running);
				}
				if (decision.type() == AcknowledgeType.RELEASE && this.policy.isLastAttempt(record)) {
					logArchived(record);
				}
				this.events.acknowledged(this.group, decision);
				if (renewed) {
					settleRenewed(record, renewal, decision);
				}
				throw new ShareDecisionException(decision, ex);
			}
			finally {
				DeliveryContextHolder.clear();
			}
		}
	}

	private ShareDecision decide(ConsumerRecord<Object, Object> record, RuntimeException failure) {
		if (!this.policy.isOutage(failure)) {
			gotThrough();
		}
		else if (this.pause != null) {
			logger.warn("Releasing " + ShareFailurePolicy.describe(record) + " and pausing the share listener of group '"
					+ this.group + "': the infrastructure failed");
			this.pause.pause(failure);
		}
		return this.policy.decide(record, failure);
	}

	/**
	 * Holds the record on the consumer thread, renewing its lock, until the store answers, however
	 * long that takes: only the application's stop ends the wait.
	 * @return {@code true} to retry the record now; {@code false} if the application stops
	 */
	private boolean waitInPlace(ConsumerRecord<Object, Object> record, ShareConsumer<?, ?> consumer,
			ShareFetchPause pause) {
		logger.warn("Holding " + ShareFailurePolicy.describe(record) + ", its last delivery attempt, until the store"
				+ " answers: the infrastructure failed");
		try (ShareLockRenewal.Renewal held = new ShareLockRenewal.Renewal(record, consumer, () -> this.events
			.acknowledged(this.group, new ShareDecision(AcknowledgeType.RENEW, Reason.OUTAGE_WAIT)))) {
			while (this.running.getAsBoolean()) {
				if (pause.circuit().awaitRecovery(this.running, held::renewNow)) {
					return true;
				}
			}
			return false;
		}
	}

	private static void logArchived(ConsumerRecord<?, ?> record) {
		logger.error("Releasing " + ShareFailurePolicy.describe(record) + " at its last delivery attempt while the"
				+ " application stops: the broker archives it; produce it again once the store answers");
	}

	private void invoke(ConsumerRecord<Object, Object> record, @Nullable ShareAcknowledgment acknowledgment,
			ShareConsumer<?, ?> consumer) {
		if (this.delegate instanceof AcknowledgingShareConsumerAwareMessageListener<?, ?> aware) {
			@SuppressWarnings("unchecked")
			AcknowledgingShareConsumerAwareMessageListener<Object, Object> typed = (AcknowledgingShareConsumerAwareMessageListener<Object, Object>) aware;
			typed.onShareRecord(record, acknowledgment, consumer);
		}
		else {
			@SuppressWarnings("unchecked")
			GenericMessageListener<ConsumerRecord<Object, Object>> plain = (GenericMessageListener<ConsumerRecord<Object, Object>>) this.delegate;
			plain.onMessage(record);
		}
	}

	/** Settles a record without the method; the listeners were told when it was decided. */
	private void settle(@Nullable ShareAcknowledgment acknowledgment, ShareDecision decision) {
		if (decision.type() == AcknowledgeType.ACCEPT) {
			if (acknowledgment != null) {
				acknowledgment.acknowledge();
			}
			return;
		}
		throw new ShareDecisionException(decision, null);
	}

	/**
	 * Settles a renewed record at once, on the consumer thread; if the client still refuses, it
	 * hands the record back on its next poll, where the decision is applied without the method.
	 */
	private void settleRenewed(ConsumerRecord<?, ?> record, ShareLockRenewal.Renewal renewal,
			ShareDecision decision) {
		if (!renewal.settleRenewed(decision.type())) {
			this.decidedBeforeRenewal.put(key(record), decision);
		}
	}

	private void gotThrough() {
		if (this.pause != null) {
			this.pause.gotThrough();
		}
	}

	private static void rejectUnreadable(ConsumerRecord<?, ?> record) {
		for (String header : new String[] { KafkaUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER,
				KafkaUtils.KEY_DESERIALIZER_EXCEPTION_HEADER }) {
			if (record.headers().lastHeader(header) != null) {
				DeserializationException failure = SerializationUtils.getExceptionFromHeader(record, header,
						HEADER_LOGGER);
				throw (failure != null) ? failure
						: new DeserializationException("Unreadable record (" + header + ")", new byte[0],
								header.equals(KafkaUtils.KEY_DESERIALIZER_EXCEPTION_HEADER), null);
			}
		}
	}

	private static String key(ConsumerRecord<?, ?> record) {
		return record.topic() + "-" + record.partition() + "@" + record.offset() + "#"
				+ ShareFailurePolicy.deliveryCount(record);
	}

	/**
	 * Tells the listeners how records were settled.
	 */
	interface ShareEvents {

		void acknowledged(String group, ShareDecision decision);

		static ShareEvents of(Supplier<? extends List<? extends DeliveryListener>> listeners) {
			return (group, decision) -> Listeners.notifyEach(listeners.get(), (listener) -> {
				if (listener instanceof ShareConsumerListener share) {
					share.onShareAcknowledged(group, decision.typeName(), decision.reason().tagValue());
				}
			}, "share acknowledgement");
		}

	}

}
