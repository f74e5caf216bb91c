package dev.idempotency.fault;

import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * The RabbitMQ consumer the fault-injection suite runs as child JVMs: {@code @RabbitListener} +
 * {@code @Idempotent(key = "#order.orderId()")} crediting points in PostgreSQL, with the starter's
 * JDBC store in the same database (the container in manual acknowledgement: {@code basic.ack} after
 * commit). Same journal, kill points and stdout/stdin protocol as the Kafka consumer,
 * {@link FaultConsumerApplication}.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultRabbitConsumerApplication} with
 * system properties (see {@code fault-child.properties} and {@code fault-rabbit-consumer.properties}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FaultChildConfiguration.class)
public class FaultRabbitConsumerApplication {

	public static void main(String[] args) {
		FaultChild.run(FaultRabbitConsumerApplication.class, "fault-child,fault-rabbit-consumer", args);
	}

	@Bean
	MessageConverter jsonMessageConverter() {
		return new JacksonJsonMessageConverter();
	}

	@Bean
	RabbitOrderListener rabbitOrderListener(PointsLedger ledger) {
		return new RabbitOrderListener(ledger);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RabbitJournalAdvisor rabbitJournalAdvisor(ObjectProvider<EventJournal> journal) {
		return new RabbitJournalAdvisor(journal::getObject);
	}

}
