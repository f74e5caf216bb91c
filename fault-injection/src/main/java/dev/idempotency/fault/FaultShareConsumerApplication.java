package dev.idempotency.fault;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;

/**
 * The Kafka share-group consumer (KIP-932) the fault-injection suite runs as child JVMs: a
 * share-group {@code @KafkaListener} + {@code @Idempotent(key = "#order.orderId()")} crediting points
 * in PostgreSQL, with the starter's JDBC store in the same database; the container in
 * {@code ShareAckMode.EXPLICIT}, so the record is accepted when the listener returns, after the
 * commit. Same journal, kill points and stdout/stdin protocol as the Kafka consumer,
 * {@link FaultConsumerApplication}.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultShareConsumerApplication} with
 * system properties (see {@code fault-child.properties} and {@code fault-share-consumer.properties}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FaultChildConfiguration.class)
public class FaultShareConsumerApplication {

	/** Consumer settings a share consumer refuses (Kafka's {@code ShareConsumerConfig}). */
	private static final List<String> NOT_FOR_SHARE_CONSUMERS = List.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
			ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.ISOLATION_LEVEL_CONFIG,
			ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);

	public static void main(String[] args) {
		FaultChild.run(FaultShareConsumerApplication.class, "fault-child,fault-share-consumer", args);
	}

	@Bean
	ShareKafkaListenerContainerFactory<String, Object> shareFactory(KafkaProperties properties) {
		Map<String, Object> config = new HashMap<>(properties.buildConsumerProperties());
		NOT_FOR_SHARE_CONSUMERS.forEach(config::remove);
		return new ShareKafkaListenerContainerFactory<>(new DefaultShareConsumerFactory<>(config));
	}

	@Bean
	ShareOrderListener shareOrderListener(PointsLedger ledger) {
		return new ShareOrderListener(ledger);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ShareJournalAdvisor shareJournalAdvisor(ObjectProvider<EventJournal> journal) {
		return new ShareJournalAdvisor(journal::getObject);
	}

}
