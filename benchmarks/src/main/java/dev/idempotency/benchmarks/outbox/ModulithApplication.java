package dev.idempotency.benchmarks.outbox;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;

/**
 * The application of {@link ModulithApp}: everything auto-configured (Spring Modulith's JDBC event
 * publication registry and its Kafka externalization among it), plus the externalization of
 * {@link OrderPublished}: to its topic, with its key, the JSON payload as the record's value.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class ModulithApplication {

	@Bean
	EventExternalizationConfiguration eventExternalizationConfiguration() {
		return EventExternalizationConfiguration.externalizing()
			.selectByType(OrderPublished.class)
			.mapping(OrderPublished.class, OrderPublished::payload)
			.route(OrderPublished.class, (event) -> RoutingTarget.forTarget(event.topic()).andKey(event.key()))
			.build();
	}

	/**
	 * The event the peer publishes in the business transaction, one per outbox row of the relay
	 * variants.
	 *
	 * @param topic the Kafka topic of the round
	 * @param key the record key
	 * @param payload the record value, the same JSON as an outbox row's
	 */
	record OrderPublished(String topic, String key, String payload) {
	}

}
