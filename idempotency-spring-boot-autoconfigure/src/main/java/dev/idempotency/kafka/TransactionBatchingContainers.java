package dev.idempotency.kafka;

import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.adapter.BatchMessagingMessageListenerAdapter;

/**
 * Gives the container of a listener that {@link TransactionBatchingListeners} switched to batch
 * mode its {@link TransactionBatchingAdapter}, which calls the record-style method once per record
 * in one transaction per poll. Fails start-up for what batching cannot keep correct: Kafka
 * transactions (the container's transaction would have to commit the offsets of records the
 * record-by-record fallback has not run), manual acknowledgement (one acknowledgement handle for
 * the whole poll) and the {@code RECORD} ack mode (which spring-kafka refuses for a batch listener
 * anyway, with a message that does not name batching).
 *
 * @since 0.2.0
 */
public class TransactionBatchingContainers
		implements ContainerPostProcessor<Object, Object, AbstractMessageListenerContainer<Object, Object>> {

	/** The bean name {@link TransactionBatchingListeners} names in the listeners it switches. */
	public static final String BEAN_NAME = "idempotencyTransactionBatchingContainers";

	private static final String OPT_OUT = "switch off idempotency.kafka.transaction-batching.enabled, or keep "
			+ "this listener record by record with @KafkaListener(batch = \"false\")";

	@Override
	@SuppressWarnings({ "rawtypes", "unchecked" })
	public void postProcess(AbstractMessageListenerContainer<Object, Object> container) {
		ContainerProperties properties = container.getContainerProperties();
		String listener = container.getListenerId();
		if (properties.getKafkaAwareTransactionManager() != null || properties.getTransactionManager() != null) {
			throw new IllegalStateException("Listener " + listener + ": transaction batching is not available with "
					+ "Kafka transactions (spring.kafka.producer.transaction-id-prefix) or a container transaction "
					+ "manager; " + OPT_OUT);
		}
		AckMode ackMode = properties.getAckMode();
		if (ackMode == AckMode.MANUAL || ackMode == AckMode.MANUAL_IMMEDIATE) {
			throw new IllegalStateException("Listener " + listener + ": transaction batching is not available with "
					+ "ack-mode " + ackMode + " (one acknowledgement would cover the whole poll); " + OPT_OUT);
		}
		if (ackMode == AckMode.RECORD) {
			throw new IllegalStateException("Listener " + listener + ": transaction batching is not available with "
					+ "ack-mode RECORD (a batched poll commits its offsets once, after the poll); keep "
					+ "spring.kafka.listener.ack-mode=batch (the default), or " + OPT_OUT);
		}
		if (!(properties.getMessageListener() instanceof BatchMessagingMessageListenerAdapter adapter)) {
			throw new IllegalStateException("Listener " + listener + ": transaction batching needs spring-kafka's "
					+ "batch listener adapter, but the listener is a "
					+ properties.getMessageListener().getClass().getName() + " (a record filter strategy wraps it); "
					+ OPT_OUT);
		}
		adapter.setBatchToRecordAdapter(new TransactionBatchingAdapter(String.valueOf(listener)));
	}

}
