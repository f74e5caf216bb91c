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
import org.springframework.context.annotation.Import;

/**
 * Every Micrometer meter of the starter, in the application's {@code MeterRegistry}: the listener
 * that records outcomes, purges, dead letters, listener pauses and outbox events (while the
 * interception is on), the duplicate filters' meters (while the filter chain is on), and the outbox
 * backlog gauges (while the outbox is on). The Redis Stream adapter's meters are wired by its own
 * auto-configuration. {@code idempotency.metrics.enabled=false} switches them all off.
 *
 * @since 0.1.0
 */
// After the outbox by name: the backlog gauges need its OutboxBacklog, and the meters do not depend on
// the outbox's classes.
@AutoConfiguration(afterName = { "dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.metrics.enabled", matchIfMissing = true)
@Import(OutboxMetricsConfiguration.class)
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
