package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.autoconfigure.health.IdempotencyHealthProperties;
import dev.idempotency.outbox.OutboxBacklog;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotencyOutbox} health indicator ({@link IdempotencyOutboxHealthIndicator}): the
 * outbox's backlog, dead rows and oldest unsent row, when Spring Boot's health module is on the class
 * path and the outbox is enabled. Switched off with
 * {@code management.health.idempotencyoutbox.enabled=false} and replaced by a bean of the
 * application's own named {@code idempotencyOutboxHealthIndicator}; its thresholds are
 * {@code idempotency.health.outbox.*}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyOutboxAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBooleanProperty("idempotency.outbox.enabled")
@ConditionalOnSingleCandidate(OutboxBacklog.class)
@EnableConfigurationProperties(IdempotencyHealthProperties.class)
public final class IdempotencyOutboxHealthAutoConfiguration {

	@Bean
	@ConditionalOnEnabledHealthIndicator("idempotencyoutbox")
	@ConditionalOnMissingBean(name = "idempotencyOutboxHealthIndicator")
	IdempotencyOutboxHealthIndicator idempotencyOutboxHealthIndicator(OutboxBacklog backlog,
			IdempotencyHealthProperties properties) {
		IdempotencyHealthProperties.Outbox outbox = properties.getOutbox();
		return new IdempotencyOutboxHealthIndicator(backlog, outbox.getMaxOldestAge(), outbox.getMaxBacklog(),
				outbox.isDeadRowsDown(), outbox.getTimeout());
	}

}
