package dev.idempotency.metrics.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import dev.idempotency.metrics.MicrometerOutboxBacklogGauges;
import dev.idempotency.outbox.OutboxRepository;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Gauges of the outbox backlog in the application's {@code MeterRegistry}, when the outbox is on.
 * The counters and the latency timer come from {@code MicrometerIdempotencyListener}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty("idempotency.outbox.enabled")
@ConditionalOnBean(OutboxRepository.class)
class OutboxMetricsConfiguration {

	@Bean
	@ConditionalOnBean(MeterRegistry.class)
	@ConditionalOnMissingBean
	MicrometerOutboxBacklogGauges outboxBacklogGauges(MeterRegistry meterRegistry,
			OutboxRepository outboxRepository) {
		return new MicrometerOutboxBacklogGauges(meterRegistry, outboxRepository, Duration.ofSeconds(1),
				Clock.systemUTC());
	}

}
