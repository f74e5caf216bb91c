package dev.idempotency.autoconfigure;

import dev.idempotency.kafka.KafkaAcknowledgmentResolver;
import dev.idempotency.kafka.KafkaDeliveryContextInterceptor;
import dev.idempotency.kafka.KafkaListenerContainerFactoryPostProcessor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link IdempotencyKafkaAutoConfiguration}.
 */
class IdempotencyKafkaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, IdempotencyKafkaAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory");

	@Test
	void errorHandlerWithRetriesAndDeadLetterTopicIsProvided() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(DefaultErrorHandler.class)
				.hasSingleBean(KafkaAcknowledgmentResolver.class)
				.hasSingleBean(KafkaListenerContainerFactoryPostProcessor.class);
		});
	}

	@Test
	void applicationErrorHandlerWins() {
		this.contextRunner.withBean(CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.run((context) -> assertThat(context).doesNotHaveBean(DefaultErrorHandler.class)
				.hasSingleBean(CommonErrorHandler.class));
	}

	@Test
	void bootsListenerContainerFactoryGetsTheDeliveryContextAndTheErrorHandler() {
		this.contextRunner.run((context) -> {
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			assertThat(factory.getRecordInterceptor()).isInstanceOf(KafkaDeliveryContextInterceptor.class);
		});
	}

	@Test
	void applicationRecordInterceptorIsKeptAlongsideTheDeliveryContext() {
		RecordInterceptor<Object, Object> own = (record, consumer) -> record;
		this.contextRunner.withBean(RecordInterceptor.class, () -> own).run((context) -> {
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			assertThat(factory.getRecordInterceptor()).isInstanceOf(CompositeRecordInterceptor.class);
		});
	}

	@Test
	void switchedOffByProperty() {
		this.contextRunner.withPropertyValues("idempotency.kafka.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaListenerContainerFactoryPostProcessor.class)
				.doesNotHaveBean(DefaultErrorHandler.class)
				.doesNotHaveBean(KafkaAcknowledgmentResolver.class));
	}

	@Test
	void backsOffWithoutSpringKafka() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyKafkaAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(KafkaOperations.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(KafkaListenerContainerFactoryPostProcessor.class));
	}

}
