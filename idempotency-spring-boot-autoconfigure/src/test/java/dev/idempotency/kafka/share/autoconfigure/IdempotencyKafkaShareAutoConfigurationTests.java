package dev.idempotency.kafka.share.autoconfigure;

import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.kafka.share.ImplicitShareAckVerifier;
import dev.idempotency.kafka.share.ShareDeliveryAttempts;
import dev.idempotency.kafka.share.ShareFailurePolicy;
import dev.idempotency.kafka.share.ShareListenerContainers;
import dev.idempotency.kafka.share.ShareLockRenewal;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.ShareAckMode;
import org.springframework.kafka.listener.MessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions and defaults of {@link IdempotencyKafkaShareAutoConfiguration}.
 */
class IdempotencyKafkaShareAutoConfigurationTests {

	// No broker: a context with a share container asks one for its delivery-attempt limit on start and
	// gives up after the broker timeout (the adapter's 5 s by default)
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(KafkaAutoConfiguration.class, IdempotencyKafkaShareAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory", "spring.kafka.bootstrap-servers=127.0.0.1:1",
				"idempotency.kafka.share.broker-timeout=200ms");

	@Test
	void shareGroupAdapterIsProvided() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(ShareListenerContainers.class)
			.hasSingleBean(ShareFailurePolicy.class)
			.hasSingleBean(ShareLockRenewal.class)
			.hasSingleBean(ShareDeliveryAttempts.class)
			.hasSingleBean(ImplicitShareAckVerifier.class));
	}

	@Test
	void defaultsArePinned() {
		IdempotencyKafkaShareProperties properties = new IdempotencyKafkaShareProperties();
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.getMaxAttempts()).isNull();
		assertThat(properties.isRenew()).isTrue();
		assertThat(properties.getRenewInterval()).isNull();
		assertThat(properties.isDeadLetter()).isTrue();
		assertThat(properties.getBrokerTimeout()).hasSeconds(5);
	}

	@Test
	void switchedOffByItsPropertyAndByTheKafkaAdapters() {
		this.contextRunner.withPropertyValues("idempotency.kafka.share.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ShareListenerContainers.class));
		this.contextRunner.withPropertyValues("idempotency.kafka.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ShareListenerContainers.class));
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ShareListenerContainers.class));
	}

	@Test
	void configuredAttemptLimitIsUsedUntilTheBrokerTellsItsOwn() {
		this.contextRunner.withPropertyValues("idempotency.kafka.share.max-attempts=2")
			.run((context) -> assertThat(context.getBean(ShareDeliveryAttempts.class).limit()).isEqualTo(2));
		this.contextRunner.run((context) -> assertThat(context.getBean(ShareDeliveryAttempts.class).limit())
			.isEqualTo(ShareDeliveryAttempts.KAFKA_DEFAULT));
	}

	@Test
	void idempotentListenerOnAnImplicitShareFactoryFailsStartUp() {
		this.contextRunner.withUserConfiguration(ImplicitFactory.class, ShareListener.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("ShareAckMode.EXPLICIT")
				.hasMessageContaining("ShareListener#onOrder");
		});
	}

	@Test
	void idempotentListenerOnAnExplicitShareFactoryStarts() {
		this.contextRunner.withUserConfiguration(ExplicitFactory.class, ShareListener.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void shareContainersAreBoundBeforeTheRegistryStartsThemInTheFactorysDefaultPhase() {
		this.contextRunner.withUserConfiguration(StartingFactory.class, StartingShareListener.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				KafkaListenerEndpointRegistry registry = context.getBean(KafkaListenerEndpointRegistry.class);
				// The share factory's default phase (0), which the registry adopts for all its containers
				assertThat(registry.getPhase()).isZero();
				assertThat(context.getBean(ShareListenerContainers.class).getPhase()).isLessThan(registry.getPhase());
				MessageListenerContainer container = registry.getListenerContainer("starting-share");
				assertThat(container.getContainerProperties().getMessageListener().getClass().getSimpleName())
					.isEqualTo("ShareDeliveryDispatcher");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class StartingFactory {

		@Bean
		ShareKafkaListenerContainerFactory<String, String> shareFactory() {
			// Nothing answers on port 1: the container starts, its consumer does not connect
			ShareKafkaListenerContainerFactory<String, String> factory = new ShareKafkaListenerContainerFactory<>(
					new DefaultShareConsumerFactory<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
							ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
							ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class)));
			// Stopping the container waits for the consumer's poll to return (5 s by default)
			factory.getContainerProperties().setPollTimeout(100);
			return factory;
		}

	}

	static class StartingShareListener {

		@KafkaListener(id = "starting-share", topics = "orders", groupId = "points", containerFactory = "shareFactory")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ImplicitFactory {

		@Bean
		ShareKafkaListenerContainerFactory<String, String> shareFactory() {
			ShareKafkaListenerContainerFactory<String, String> factory = new ShareKafkaListenerContainerFactory<>(
					new DefaultShareConsumerFactory<>(Map.of()));
			factory.getContainerProperties().setShareAckMode(ShareAckMode.IMPLICIT);
			factory.setAutoStartup(false);
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ExplicitFactory {

		@Bean
		ShareKafkaListenerContainerFactory<String, String> shareFactory() {
			ShareKafkaListenerContainerFactory<String, String> factory = new ShareKafkaListenerContainerFactory<>(
					new DefaultShareConsumerFactory<>(Map.of()));
			factory.setAutoStartup(false);
			return factory;
		}

	}

	static class ShareListener {

		@KafkaListener(topics = "orders", groupId = "points", containerFactory = "shareFactory", autoStartup = "false")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

}
