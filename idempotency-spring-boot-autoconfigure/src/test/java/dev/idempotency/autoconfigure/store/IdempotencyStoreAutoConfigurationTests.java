package dev.idempotency.autoconfigure.store;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcDataSourceScriptDatabaseInitializer;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcProperties;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisProperties;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.IdempotencyPurgeJob;
import dev.idempotency.support.InMemoryIdempotencyStore;
import dev.idempotency.support.NoIdempotencyStoreException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which store {@link IdempotencyStoreAutoConfiguration} and the store technologies'
 * auto-configurations before it pick: the JDBC store on a single {@code DataSource}, the Redis store
 * when asked for with a connection factory, the in-memory store only when asked for, and never one
 * next to a store of the application's own. No database or Redis server is needed: H2 in memory,
 * and the Redis connection factory connects lazily.
 */
class IdempotencyStoreAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class));

	private final ApplicationContextRunner jdbcContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.jdbc.purge.interval=1h");

	private final ApplicationContextRunner redisContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));

	@Test
	void jdbcStoreIsChosenWithASingleDataSource() {
		this.jdbcContextRunner.run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyStore.class);
			assertThat(context).getBean("idempotencyStore").isInstanceOf(JdbcIdempotencyStore.class);
			assertThat(context).hasSingleBean(IdempotencyJdbcProperties.class)
				.hasSingleBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class)
				.hasSingleBean(IdempotencyPurgeJob.class);
		});
	}

	@Test
	void jdbcStoreIsChosenWhenAskedForWithASingleDataSource() {
		this.jdbcContextRunner.withPropertyValues("idempotency.store.type=jdbc")
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
				.isInstanceOf(JdbcIdempotencyStore.class));
	}

	@Test
	void redisStoreIsChosenWhenAskedForWithAConnectionFactory() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=redis").run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyStore.class);
			assertThat(context).getBean("idempotencyStore").isInstanceOf(RedisIdempotencyStore.class);
			assertThat(context).hasSingleBean(IdempotencyRedisProperties.class)
				.doesNotHaveBean(IdempotencyJdbcProperties.class)
				.doesNotHaveBean(IdempotencyPurgeJob.class);
		});
	}

	@Test
	void inMemoryStoreIsChosenWhenAskedFor() {
		this.contextRunner.withPropertyValues("idempotency.store.type=in-memory").run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyStore.class);
			assertThat(context).getBean("idempotencyStore").isInstanceOf(InMemoryIdempotencyStore.class);
		});
	}

	@Test
	void inMemoryStoreIsChosenWhenAskedForEvenNextToADataSource() {
		this.jdbcContextRunner.withPropertyValues("idempotency.store.type=in-memory").run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(InMemoryIdempotencyStore.class);
			assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class).doesNotHaveBean(IdempotencyPurgeJob.class);
		});
	}

	@Test
	void inMemoryStoreIsNeverDetected() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void applicationsOwnStoreWins() {
		this.jdbcContextRunner.withBean("ownStore", IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyStore.class).hasBean("ownStore");
				assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class)
					.doesNotHaveBean(IdempotencyPurgeJob.class)
					.doesNotHaveBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class);
			});
	}

	@Test
	void jdbcStoreAskedForWithoutADataSourceBacksOffAndNoOtherStoreTakesItsPlace() {
		// Not a start-up failure by itself: the store configurations back off, and it is the
		// @Idempotent methods that need a store (see the next test).
		this.redisContextRunner.withPropertyValues("idempotency.store.type=jdbc")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyJdbcProperties.class));
	}

	@Test
	void jdbcStoreAskedForWithoutADataSourceFailsStartUpOfAnIdempotentMethod() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
				TransactionAutoConfiguration.class, IdempotencyAutoConfiguration.class))
			.withPropertyValues("idempotency.store.type=jdbc")
			.withBean(OrderListener.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
					.isInstanceOf(NoIdempotencyStoreException.class);
			});
	}

	@Test
	void noStoreWhenIdempotencyIsDisabled() {
		this.jdbcContextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	static class OrderListener {

		@Idempotent(key = "#p0")
		void onOrder(String orderId) {
		}

	}

}
