package dev.idempotency.sample;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigResource;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * The share-group flow's Kafka objects: its topic and dead-letter topic, the share container
 * factory (Spring Boot declares none) with the demo's consumer settings, and the group's
 * {@code share.auto.offset.reset=earliest}, set before the containers start (a share group
 * otherwise starts at the latest record).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(ShareFlow.ENABLED)
class ShareFlowConfiguration {

	/** The share container factory's bean name. */
	static final String FACTORY = "shareFactory";

	/** Consumer settings a share consumer refuses (Kafka's {@code ShareConsumerConfig}). */
	private static final List<String> NOT_FOR_SHARE_CONSUMERS = List.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
			ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
			ConsumerConfig.ISOLATION_LEVEL_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
			ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
			ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG,
			ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

	@Bean
	NewTopic shareOrdersTopic(DemoProperties demo) {
		return TopicBuilder.name(ShareFlow.TOPIC).partitions(demo.partitions()).replicas(1).build();
	}

	@Bean
	NewTopic shareOrdersDeadLetterTopic() {
		return TopicBuilder.name(ShareFlow.DEAD_LETTER_TOPIC).partitions(1).replicas(1).build();
	}

	/** The Kafka flow's deserializers (JSON behind an {@code ErrorHandlingDeserializer}). */
	@Bean(FACTORY)
	ShareKafkaListenerContainerFactory<String, Object> shareFactory(KafkaProperties properties) {
		Map<String, Object> config = new HashMap<>(properties.buildConsumerProperties());
		NOT_FOR_SHARE_CONSUMERS.forEach(config::remove);
		return new ShareKafkaListenerContainerFactory<>(new DefaultShareConsumerFactory<>(config));
	}

	@Bean
	SmartInitializingSingleton shareGroupFromEarliest(KafkaAdmin admin) {
		return () -> {
			ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, ShareFlow.GROUP);
			AlterConfigOp earliest = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
					AlterConfigOp.OpType.SET);
			try (Admin client = Admin.create(admin.getConfigurationProperties())) {
				client.incrementalAlterConfigs(Map.of(group, List.of(earliest))).all().get(30, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not set share.auto.offset.reset of " + ShareFlow.GROUP, ex);
			}
		};
	}

}
