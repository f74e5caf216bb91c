package dev.idempotency.sample;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * Orders → points: the order service writes each order and its event in one transaction (the
 * outbox), the relay sends the event at least once, and {@code @Idempotent} makes sure its points
 * are credited once, over Kafka and, when Redis answers, over a Redis Stream. Without
 * {@code spring.kafka.bootstrap-servers} the demo starts an in-process broker
 * ({@link EmbeddedKafkaInitializer}); whether the stream flow runs is decided by
 * {@link RedisStreamDemoInitializer}.
 * <p>
 * The demo runs, prints its report and exits with status 0 when every order was credited exactly
 * once (1 otherwise). Set {@code demo.keep-running=true} to keep the application up instead.
 */
@SpringBootApplication
@EnableConfigurationProperties(DemoProperties.class)
public class SampleApplication {

	/** The orders topic; on a real cluster Spring Kafka's {@code KafkaAdmin} creates it if missing. */
	@Bean
	NewTopic ordersTopic(DemoProperties demo) {
		return TopicBuilder.name(KafkaFlow.TOPIC).partitions(demo.partitions()).replicas(1).build();
	}

	/** Where the starter's error handler publishes records it gave up on. */
	@Bean
	NewTopic ordersDeadLetterTopic() {
		return TopicBuilder.name(KafkaFlow.DEAD_LETTER_TOPIC).partitions(1).replicas(1).build();
	}

	/**
	 * The producer writes {@code OrderPlaced} as JSON, the outbox relay's payloads (already JSON
	 * strings) as they are, and dead letters: a record that failed deserialization is dead-lettered
	 * with its original bytes, which must go out unchanged.
	 */
	@Bean
	DefaultKafkaProducerFactoryCustomizer jsonOrRawBytesValues() {
		return (factory) -> {
			Map<Class<?>, Serializer<?>> byType = new LinkedHashMap<>();
			byType.put(byte[].class, new ByteArraySerializer());
			byType.put(String.class, new StringSerializer());
			byType.put(Object.class, new JacksonJsonSerializer<>());
			((DefaultKafkaProducerFactory<Object, Object>) factory)
				.setValueSerializer(new DelegatingByTypeSerializer(byType, true));
		};
	}

	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, args);
		// Exiting here rather than from the runner keeps tests (which never call main) running.
		if (!context.getEnvironment().getProperty("demo.keep-running", Boolean.class, false)) {
			DemoRunner demo = context.getBeanProvider(DemoRunner.class).getIfAvailable();
			int exitCode = SpringApplication.exit(context);
			DemoReport report = (demo != null) ? demo.report() : null;
			if (report != null) {
				// After the context closed, so the shutdown's own log lines come before it.
				System.out.println(System.lineSeparator() + "Demo verdict: " + report.verdict());
			}
			System.exit(exitCode);
		}
	}

}
