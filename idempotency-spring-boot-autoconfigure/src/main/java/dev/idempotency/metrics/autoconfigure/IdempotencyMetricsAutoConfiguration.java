package dev.idempotency.metrics.autoconfigure;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.metrics.MicrometerDuplicateFilterListener;
import dev.idempotency.metrics.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The engine's Micrometer meters, in the application's {@code MeterRegistry}: the listener that
 * records outcomes, purges, reconciliations, dead letters and listener pauses (while the
 * interception is on), and the duplicate filters' meters (while the filter chain is on).
 * {@code idempotency.metrics.enabled=false} switches them off, and the technologies' meters too: the
 * Redis Stream adapter's and the outbox's, which their own auto-configurations wire.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.metrics.enabled", matchIfMissing = true)
public final class IdempotencyMetricsAutoConfiguration {

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean
	MicrometerIdempotencyListener micrometerIdempotencyListener(MeterRegistry registry) {
		return new MicrometerIdempotencyListener(registry);
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.filter.enabled")
	@ConditionalOnMissingBean
	MicrometerDuplicateFilterListener micrometerDuplicateFilterListener(MeterRegistry registry,
			ObjectProvider<DuplicateFilter> filters) {
		MicrometerDuplicateFilterListener listener = new MicrometerDuplicateFilterListener(registry);
		filters.orderedStream().forEach(listener::bindMemory);
		return listener;
	}

}
