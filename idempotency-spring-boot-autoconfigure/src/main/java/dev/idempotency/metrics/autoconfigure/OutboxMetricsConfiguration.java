package dev.idempotency.metrics.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import dev.idempotency.core.OutboxBacklog;
import dev.idempotency.metrics.MicrometerOutboxBacklogGauges;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Gauges of the outbox backlog in the application's {@code MeterRegistry}, when the outbox is on.
 * The counters and the latency timer come from {@code MicrometerIdempotencyListener}. Read through
 * the core {@link OutboxBacklog} (the outbox repository), as the outbox's health indicator does, so
 * that the meters do not depend on the outbox's classes.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty("idempotency.outbox.enabled")
@ConditionalOnSingleCandidate(OutboxBacklog.class)
class OutboxMetricsConfiguration {

	@Bean
	@ConditionalOnBean(MeterRegistry.class)
	@ConditionalOnMissingBean
	MicrometerOutboxBacklogGauges outboxBacklogGauges(MeterRegistry meterRegistry,
			OutboxBacklog outboxBacklog) {
		return new MicrometerOutboxBacklogGauges(meterRegistry, outboxBacklog, Duration.ofSeconds(1),
				Clock.systemUTC());
	}

}
