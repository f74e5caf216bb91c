package dev.idempotency.store.redis.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcDataSourceScriptDatabaseInitializer;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.support.IdempotencyPurgeJob;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyRedisStoreAutoConfiguration}, with the store choice of
 * {@link IdempotencyStoreAutoConfiguration} and the JDBC store beside it, and on its own. No Redis
 * server is needed: the connection factory connects lazily.
 */
class RedisStoreAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class));

	private final ApplicationContextRunner redisContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));

	private final ApplicationContextRunner redisAndJdbcContextRunner = this.redisContextRunner
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void redisStoreIsUsedWhenAsked() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=redis").run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedisIdempotencyStore.class);
			assertThat(context).hasBean("idempotencyStore");
			assertThat(context.getBean(RedisIdempotencyStore.class).getKeyPrefix()).isEqualTo("idempotency:");
		});
	}

	@Test
	void redisStoreIsDetectedWhenThereIsRedisAndNoDataSource() {
		this.redisContextRunner.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
			.isInstanceOf(RedisIdempotencyStore.class));
	}

	@Test
	void jdbcStoreWinsTheDetectionWhenThereIsADataSourceToo() {
		this.redisAndJdbcContextRunner.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
			.isInstanceOf(JdbcIdempotencyStore.class));
	}

	@Test
	void redisStoreIsNotDetectedNextToDataSourcesTheJdbcStoreCannotChooseFrom() {
		// Two DataSources and no primary: the JDBC store backs off, and the business data is still
		// in a database, so the choice is left to idempotency.store.type.
		this.redisContextRunner.withBean("first", DataSource.class, RedisStoreAutoConfigurationTests::h2)
			.withBean("second", DataSource.class, RedisStoreAutoConfigurationTests::h2)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void redisStoreWinsOverADataSourceWhenAsked() {
		this.redisAndJdbcContextRunner.withPropertyValues("idempotency.store.type=redis").run((context) -> {
			assertThat(context).hasSingleBean(DataSource.class);
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedisIdempotencyStore.class);
			assertThat(context).doesNotHaveBean(IdempotencyPurgeJob.class)
				.doesNotHaveBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class);
		});
	}

	@Test
	void redisStoreIsUsedWhateverTheSpellingOfTheEnumValue() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=REDIS")
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
				.isInstanceOf(RedisIdempotencyStore.class));
	}

	@Test
	void otherStoreTypesWinOverRedisWhenAsked() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=in-memory")
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
				.isInstanceOf(InMemoryIdempotencyStore.class));
		this.redisContextRunner.withPropertyValues("idempotency.store.type=jdbc")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void keyPrefixComesFromProperty() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=redis", "idempotency.redis.key-prefix=app:")
			.run((context) -> assertThat(context.getBean(RedisIdempotencyStore.class).getKeyPrefix())
				.isEqualTo("app:"));
	}

	@Test
	void userDefinedStoreBacksOffTheRedisStore() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=redis")
			.withBean("myStore", IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.hasBean("myStore")
				.doesNotHaveBean(RedisIdempotencyStore.class));
	}

	@Test
	void thereIsNoRedisStoreWithoutARedisConnectionFactory() {
		this.contextRunner.withPropertyValues("idempotency.store.type=redis")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyRedisProperties.class));
	}

	@Test
	void redisStoreBacksOffWithoutSpringDataRedis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.withPropertyValues("idempotency.store.type=redis")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyRedisProperties.class));
	}

	@Test
	void redisStoreIsOffWhenIdempotencyIsDisabled() {
		this.redisContextRunner.withPropertyValues("idempotency.store.type=redis", "idempotency.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void onItsOwnTheRedisStoreKeepsItsConditions() {
		ApplicationContextRunner alone = new ApplicationContextRunner().withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class));
		alone.run((context) -> assertThat(context).getBean("idempotencyStore")
			.isInstanceOf(RedisIdempotencyStore.class));
		alone.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
		alone.withPropertyValues("idempotency.store.type=in-memory")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
		alone.withBean("first", DataSource.class, RedisStoreAutoConfigurationTests::h2)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	private static DataSource h2() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		dataSource.setUser("sa");
		return dataSource;
	}

}
