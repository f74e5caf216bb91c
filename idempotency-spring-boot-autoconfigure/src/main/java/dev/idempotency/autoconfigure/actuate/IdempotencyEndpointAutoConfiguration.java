package dev.idempotency.autoconfigure.actuate;

import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKeys;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} Actuator endpoint ({@link IdempotencyEndpoint}) and its sections, when
 * Spring Boot's Actuator is on the class path, the application has an {@link IdempotencyStore} and
 * the endpoint is available (its access is not {@code none} and it is exposed:
 * {@code management.endpoints.web.exposure.include=idempotency}). Reads are allowed by default;
 * writes need {@code management.endpoint.idempotency.access=unrestricted}. Dead letters are listed
 * and re-driven through the {@link DeadLetterSource} beans, which the transports' auto-configurations
 * add (Kafka's and Redis Streams'). Each concern is an {@link IdempotencyEndpointSection} bean
 * ({@code keys}, {@code parked}, {@code dead-letters} here; {@code outbox} from the outbox's
 * auto-configuration); a section bean of the application's own adds a path. A bean of the
 * application's own of type {@link IdempotencyEndpoint} replaces the endpoint.
 *
 * @since 0.2.0
 */
// The store technologies run before IdempotencyStoreAutoConfiguration, so their stores are known here.
@AutoConfiguration(after = { IdempotencyStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean(IdempotencyStore.class)
public final class IdempotencyEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyEndpoint idempotencyEndpoint(ObjectProvider<IdempotencyEndpointSection> sections) {
		return new IdempotencyEndpoint(sections.orderedStream().toList());
	}

	@Bean
	KeysSection idempotencyEndpointKeysSection(Map<String, IdempotencyStore> stores) {
		return new KeysSection(stores);
	}

	@Bean
	ParkedKeysSection idempotencyEndpointParkedSection(ObjectProvider<ParkedKeys> parkedKeys,
			ObjectProvider<IdempotencyProperties> properties) {
		IdempotencyProperties idempotency = properties.getIfAvailable(IdempotencyProperties::new);
		return new ParkedKeysSection(parkedKeys.getIfUnique(), idempotency.getRetention());
	}

	@Bean
	DeadLettersSection idempotencyEndpointDeadLettersSection(ObjectProvider<DeadLetterSource> deadLetters) {
		return new DeadLettersSection(deadLetters.orderedStream().toList());
	}

}
