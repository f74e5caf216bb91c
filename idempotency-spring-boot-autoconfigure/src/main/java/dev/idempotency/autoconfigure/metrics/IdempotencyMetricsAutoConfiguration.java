package dev.idempotency.autoconfigure.metrics;

import dev.idempotency.metrics.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Records idempotency outcomes and purges in the application's {@code MeterRegistry}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = { "idempotency.enabled", "idempotency.metrics.enabled" }, matchIfMissing = true)
public final class IdempotencyMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerIdempotencyListener micrometerIdempotencyListener(MeterRegistry registry) {
		return new MicrometerIdempotencyListener(registry);
	}

}
