package dev.idempotency.store.jdbc.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on HSQLDB, for which the jar ships no schema script (see {@code docs/jdbc-store.md}):
 * what {@code idempotency.jdbc.initialize-schema} does there.
 */
class HsqldbSchemaInitializationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				DataSourceInitializationAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:hsqldb:mem:" + UUID.randomUUID(),
				"spring.datasource.username=SA");

	@Test
	void inMemoryHsqldbWithTheDefaultInitializationFailsStartupNamingTheMissingScript() {
		this.contextRunner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("classpath:dev/idempotency/store/jdbc/schema-hsqldb.sql"));
	}

	@Test
	void hsqldbWithInitializationOffUsesTheGenericDialect() {
		// No table on purpose: the schema check would stop start-up.
		this.contextRunner.withPropertyValues("idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.schema-check=off")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(JdbcIdempotencyStore.class).getDialect())
					.isEqualTo(JdbcIdempotencyDialect.GENERIC);
				assertThat(context.getBean(DataSource.class)).isNotNull();
			});
	}

}
