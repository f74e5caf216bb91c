package dev.idempotency.autoconfigure.store;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of the default {@code IdempotencyStore}, with the store technologies' own
 * auto-configurations, which run before this one: {@code idempotency.store.type} chooses among them
 * ({@link StoreTypeCondition}), and a store bean of the application's own always wins. With the type
 * unset: JDBC when there is a single {@code DataSource}, else Redis when there is a
 * {@code RedisConnectionFactory} and no {@code DataSource} at all. This one adds the in-memory
 * store, only when it is chosen.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = IdempotencyAutoConfiguration.class,
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
		"org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@Import(InMemoryStoreConfiguration.class)
public final class IdempotencyStoreAutoConfiguration {

}
