package dev.idempotency.autoconfigure.store;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.JdbcStoreConfiguration;
import dev.idempotency.store.redis.autoconfigure.RedisStoreConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of the default {@code IdempotencyStore}. The imported configurations are
 * tried in order and the first that matches wins; a store bean of the application's own always
 * wins. With {@code idempotency.store.type} unset: JDBC when there is a single {@code DataSource},
 * else Redis when there is a {@code RedisConnectionFactory} and no {@code DataSource} at all.
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
@Import({ JdbcStoreConfiguration.class, RedisStoreConfiguration.class, InMemoryStoreConfiguration.class })
public final class IdempotencyStoreAutoConfiguration {

}
