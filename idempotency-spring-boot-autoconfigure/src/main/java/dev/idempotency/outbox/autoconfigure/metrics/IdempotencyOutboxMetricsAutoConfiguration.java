package dev.idempotency.outbox.autoconfigure.metrics;

import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.metrics.MicrometerOutboxBacklogGauges;
import dev.idempotency.outbox.metrics.MicrometerOutboxListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The outbox's meters in the application's {@code MeterRegistry}, unless
 * {@code idempotency.metrics.enabled=false}: a {@link MicrometerOutboxListener}, which the relay
 * finds among the {@code OutboxListener} beans (as long as {@code idempotency.enabled} is not
 * {@code false}, as the engine's meters), and the {@link MicrometerOutboxBacklogGauges} (while the
 * outbox is on).
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyOutboxAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.metrics.enabled", matchIfMissing = true)
@Import(OutboxMetricsConfiguration.class)
public final class IdempotencyOutboxMetricsAutoConfiguration {

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean
	MicrometerOutboxListener micrometerOutboxListener(MeterRegistry registry) {
		return new MicrometerOutboxListener(registry);
	}

}
