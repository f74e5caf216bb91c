package dev.idempotency.kafka.share.autoconfigure.metrics;

import dev.idempotency.kafka.share.metrics.MicrometerShareConsumerListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;

/**
 * The share-group adapter's meters in the application's {@code MeterRegistry}: a
 * {@link MicrometerShareConsumerListener}, which the adapter finds among the
 * {@code DeliveryListener} beans. Under the conditions of the engine's meters: a
 * {@code MeterRegistry} bean, {@code idempotency.metrics.enabled} and {@code idempotency.enabled}
 * not {@code false}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, ShareKafkaListenerContainerFactory.class })
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.metrics.enabled", matchIfMissing = true)
public final class IdempotencyKafkaShareMetricsAutoConfiguration {

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean
	MicrometerShareConsumerListener micrometerShareConsumerListener(MeterRegistry registry) {
		return new MicrometerShareConsumerListener(registry);
	}

}
