package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.rabbit.RabbitListenerContainers;

import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotencyRabbit} health indicator ({@link IdempotencyRabbitHealthIndicator}): the
 * listener containers of {@code @Idempotent} {@code @RabbitListener} methods, when Spring Boot's
 * health module is on the class path and the RabbitMQ adapter runs. Switched off with
 * {@code management.health.idempotencyrabbit.enabled=false} and replaced by a bean of the
 * application's own named {@code idempotencyRabbitHealthIndicator}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyRabbitAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class,
		RabbitListenerEndpointRegistry.class })
@ConditionalOnBean(RabbitListenerContainers.class)
public final class IdempotencyRabbitHealthAutoConfiguration {

	@Bean
	@ConditionalOnEnabledHealthIndicator("idempotencyrabbit")
	@ConditionalOnMissingBean(name = "idempotencyRabbitHealthIndicator")
	IdempotencyRabbitHealthIndicator idempotencyRabbitHealthIndicator(RabbitListenerContainers containers) {
		return new IdempotencyRabbitHealthIndicator(containers);
	}

}
