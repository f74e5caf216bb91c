package dev.idempotency.outbox.autoconfigure.metrics;

import java.time.Clock;
import java.time.Duration;

import dev.idempotency.outbox.OutboxBacklog;
import dev.idempotency.outbox.metrics.MicrometerOutboxBacklogGauges;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Gauges of the outbox backlog in the application's {@code MeterRegistry}, when the outbox is on,
 * read through its {@link OutboxBacklog} (the outbox repository, or the application's own), as the
 * outbox's health indicator does. The counters and the latency timer come from
 * {@code MicrometerOutboxListener}.
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
