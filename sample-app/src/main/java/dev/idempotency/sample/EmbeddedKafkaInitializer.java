package dev.idempotency.sample;

import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Starts an in-process KRaft broker (spring-kafka-test) for the demo when no
 * {@code spring.kafka.bootstrap-servers} is configured, and points Spring Boot's Kafka
 * auto-configuration at it. Pointing the demo at a real cluster is that one property. The broker
 * stops with the application context.
 * <p>
 * The in-process broker has share groups on, so the share-group flow ({@link ShareFlow}) runs on
 * it unless {@value ShareFlow#ENABLED} is set; with a cluster of your own it runs only when that
 * property says so (the cluster must have share groups on).
 * <p>
 * Spring AOT processing at build time ({@code process-aot}, {@code process-test-aot}) prepares the
 * bean definitions only and connects to nothing, so no broker is started then; the initializer runs
 * again when the processed application or test starts.
 */
public class EmbeddedKafkaInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	static final String BOOTSTRAP_SERVERS = "spring.kafka.bootstrap-servers";

	private static final Log logger = LogFactory.getLog(EmbeddedKafkaInitializer.class);

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		if (Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			// The processed application starts its in-process broker, share groups on, as a plain run does.
			if (!environment.containsProperty(BOOTSTRAP_SERVERS) && !environment.containsProperty(ShareFlow.ENABLED)) {
				decide(environment, true);
			}
			return;
		}
		if (environment.containsProperty(BOOTSTRAP_SERVERS)) {
			if (!environment.containsProperty(ShareFlow.ENABLED)) {
				decide(environment, false);
				logger.info(BOOTSTRAP_SERVERS + " is set: Kafka share-group flow skipped (set " + ShareFlow.ENABLED
						+ "=true if the cluster has share groups on)");
			}
			return;
		}
		int partitions = environment.getProperty("demo.partitions", Integer.class, 3);
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, partitions);
		// Share groups (KIP-932), with the share coordinator's state topic on this one broker.
		broker.brokerProperties(Map.of("group.share.enable", "true", "share.coordinator.state.topic.num.partitions",
				"1", "share.coordinator.state.topic.replication.factor", "1", "share.coordinator.state.topic.min.isr",
				"1"));
		// By default the broker publishes its address as the system property
		// spring.kafka.bootstrap-servers, which every later context in this JVM would then use.
		broker.brokerListProperty("demo.embedded-kafka.brokers");
		broker.afterPropertiesSet();
		// Destroyed with the singletons, after the listener containers and producers stopped: the first
		// one registered is the last one destroyed. (On ContextClosedEvent they would still be running.)
		((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("embeddedKafkaBroker", broker);
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedKafka", Map.of(BOOTSTRAP_SERVERS, broker.getBrokersAsString())));
		if (!environment.containsProperty(ShareFlow.ENABLED)) {
			decide(environment, true);
		}
		logger.info("No " + BOOTSTRAP_SERVERS + " set: started an in-process Kafka broker at "
				+ broker.getBrokersAsString());
	}

	private static void decide(ConfigurableEnvironment environment, boolean shareFlow) {
		environment.getPropertySources()
			.addLast(new MapPropertySource("kafkaShareDemo", Map.of(ShareFlow.ENABLED, shareFlow)));
	}

}
