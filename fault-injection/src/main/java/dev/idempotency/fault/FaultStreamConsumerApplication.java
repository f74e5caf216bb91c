package dev.idempotency.fault;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * The Redis Stream consumer the fault-injection suite runs as child JVMs:
 * {@code @RedisStreamListener} + {@code @Idempotent(key = "#entry.value.orderId")} crediting points
 * in PostgreSQL, with the starter's JDBC store in the same database (the transactional mode: XACK
 * after commit). Same journal, kill points and stdout/stdin protocol as the Kafka consumer,
 * {@link FaultConsumerApplication}.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultStreamConsumerApplication} with
 * system properties (see {@code fault-child.properties} and {@code fault-stream-consumer.properties}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FaultChildConfiguration.class)
public class FaultStreamConsumerApplication {

	public static void main(String[] args) {
		FaultChild.run(FaultStreamConsumerApplication.class, "fault-child,fault-stream-consumer", args);
	}

	@Bean
	StreamOrderListener streamOrderListener(PointsLedger ledger) {
		return new StreamOrderListener(ledger);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static StreamJournalAdvisor streamJournalAdvisor(ObjectProvider<EventJournal> journal) {
		return new StreamJournalAdvisor(journal::getObject);
	}

}
