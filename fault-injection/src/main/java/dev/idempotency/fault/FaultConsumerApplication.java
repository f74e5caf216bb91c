package dev.idempotency.fault;

import java.util.Map;

import org.apache.kafka.common.serialization.ByteArraySerializer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * The Kafka consumer the fault-injection suite runs as child JVMs: {@code @KafkaListener} +
 * {@code @Idempotent(key = "#msg.orderId")} crediting points in PostgreSQL, with the starter's JDBC
 * store in the same database. It writes its {@link EventJournal} (through {@link KafkaJournal}),
 * stops at {@link FaultPoints}, and talks to the parent through stdout lines starting with
 * {@value FaultChild#PREFIX} and commands on stdin.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultConsumerApplication} with
 * system properties (see {@code fault-child.properties} and {@code fault-consumer.properties}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FaultChildConfiguration.class)
public class FaultConsumerApplication {

	public static void main(String[] args) {
		FaultChild.run(FaultConsumerApplication.class, "fault-child,fault-consumer", args);
	}

	@Bean
	KafkaJournal kafkaJournal(EventJournal journal,
			@Value("${idempotency.kafka.transaction-batching.enabled:false}") boolean transactionBatching) {
		return new KafkaJournal(journal, transactionBatching);
	}

	@Bean
	@ConditionalOnProperty(name = "fault.ack-mode", havingValue = "record")
	OrderListeners.RecordAck recordAckListener(PointsLedger ledger) {
		return new OrderListeners.RecordAck(ledger);
	}

	@Bean
	@ConditionalOnProperty(name = "fault.ack-mode", havingValue = "manual_immediate", matchIfMissing = true)
	OrderListeners.ManualAck manualAckListener(PointsLedger ledger) {
		return new OrderListeners.ManualAck(ledger);
	}

	@Bean
	@ConditionalOnProperty(name = "fault.ack-mode", havingValue = "batch")
	OrderListeners.Batch batchListener(PointsLedger ledger) {
		return new OrderListeners.Batch(ledger);
	}

	/** Dead letters: raw bytes for a record that could not be read, JSON for an OrderPlaced. */
	@Bean
	DefaultKafkaProducerFactoryCustomizer deadLetterSerializer() {
		return (factory) -> ((DefaultKafkaProducerFactory<Object, Object>) factory)
			.setValueSerializer(new DelegatingByTypeSerializer(Map.of(byte[].class, new ByteArraySerializer(),
					OrderPlaced.class, new JacksonJsonSerializer<>())));
	}

}
