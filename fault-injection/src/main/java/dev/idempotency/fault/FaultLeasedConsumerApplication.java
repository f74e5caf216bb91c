package dev.idempotency.fault;

import java.util.Map;

import dev.idempotency.core.IdempotencyReconciler;
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
 * The leased-mode Kafka consumer of {@code LeasedSideEffectFaultIntegrationTests}, run as child
 * JVMs: {@code @KafkaListener} + {@code @Idempotent(mode = LEASED)} charging each order at an HTTP
 * payment provider (the parent's stub), with the starter's JDBC store on PostgreSQL. With
 * {@code fault.reconciler=true} it declares an {@link IdempotencyReconciler} that asks the provider
 * ({@link ChargeReconciler}); without it, a delivery takes over a claim whose lease ended.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultLeasedConsumerApplication} with
 * system properties (see {@code fault-child.properties}, {@code fault-consumer.properties} and
 * {@code fault-leased-consumer.properties}), plus {@code fault.charges-url}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FaultChildConfiguration.class)
public class FaultLeasedConsumerApplication {

	public static void main(String[] args) {
		FaultChild.run(FaultLeasedConsumerApplication.class, "fault-child,fault-consumer,fault-leased-consumer", args);
	}

	@Bean
	KafkaJournal kafkaJournal(EventJournal journal) {
		// Leased mode is never batched (no transaction would undo the records before a failure).
		return new KafkaJournal(journal, false);
	}

	@Bean
	ChargeClient chargeClient(@Value("${fault.charges-url}") String url) {
		return new ChargeClient(url);
	}

	@Bean
	LeasedChargeListener leasedChargeListener(ChargeClient charges, FaultPoints points) {
		return new LeasedChargeListener(charges, points);
	}

	@Bean
	@ConditionalOnProperty(name = "fault.reconciler", havingValue = "true")
	ChargeReconciler chargeReconciler(ChargeClient charges) {
		return new ChargeReconciler(charges);
	}

	/** Dead letters: raw bytes for a record that could not be read, JSON for an OrderPlaced. */
	@Bean
	DefaultKafkaProducerFactoryCustomizer deadLetterSerializer() {
		return (factory) -> ((DefaultKafkaProducerFactory<Object, Object>) factory)
			.setValueSerializer(new DelegatingByTypeSerializer(Map.of(byte[].class, new ByteArraySerializer(),
					OrderPlaced.class, new JacksonJsonSerializer<>())));
	}

}
