package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.store.redisson.RedissonFailureTypes;
import dev.idempotency.store.redisson.RedissonIdempotencyLock;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link IdempotencyRedissonAutoConfiguration}. No Redis server is needed: the tests that
 * need a client give a mock one, and the client built from {@code spring.data.redis.*} is checked
 * through its configuration (the lock-mode integration tests start it for real).
 */
class IdempotencyRedissonAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				IdempotencyRedissonAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class));

	private final ApplicationContextRunner withClient = this.contextRunner.withBean("redisson", RedissonClient.class,
			() -> mock(RedissonClient.class));

	private final ApplicationContextRunner withClientAndJdbc = this.withClient
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void redissonStoreIsUsedWhenAskedOnTheApplicationsClient() {
		this.withClient.withPropertyValues("idempotency.store.type=redisson").run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedissonIdempotencyStore.class);
			assertThat(context.getBean(RedissonIdempotencyStore.class).getKeyPrefix()).isEqualTo("idempotency:");
			assertThat(context).hasSingleBean(RedissonClient.class).doesNotHaveBean("idempotencyRedissonClient");
		});
	}

	@Test
	void redissonStoreWinsOverADataSourceWhenAskedAndUsesItsKeyPrefix() {
		this.withClientAndJdbc
			.withPropertyValues("idempotency.store.type=REDISSON", "idempotency.redisson.key-prefix=orders:")
			.run((context) -> {
				assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedissonIdempotencyStore.class);
				assertThat(context.getBean(RedissonIdempotencyStore.class).getKeyPrefix()).isEqualTo("orders:");
			});
	}

	@Test
	void nothingOfRedissonIsConfiguredUnlessAsked() {
		this.withClientAndJdbc.run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(JdbcIdempotencyStore.class);
			assertThat(context).doesNotHaveBean(IdempotencyLock.class);
		});
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(RedissonClient.class)
			.doesNotHaveBean(IdempotencyLock.class));
	}

	@Test
	void lockIsOffByDefaultAndOnWhenEnabledInFrontOfAnyStore() {
		this.withClientAndJdbc
			.withPropertyValues("idempotency.redisson.lock.enabled=true", "idempotency.redisson.lock.wait-time=3s",
					"idempotency.redisson.lock.lease-time=20s", "idempotency.redisson.lock.key-prefix=locks:")
			.run((context) -> {
				assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(JdbcIdempotencyStore.class);
				RedissonIdempotencyLock lock = context.getBean(RedissonIdempotencyLock.class);
				assertThat(lock.getWaitTime()).isEqualTo(Duration.ofSeconds(3));
				assertThat(lock.getLeaseTime()).isEqualTo(Duration.ofSeconds(20));
				assertThat(lock.getKeyPrefix()).isEqualTo("locks:");
			});
	}

	@Test
	void lockDefaultsToTheWatchdogAndATenSecondWait() {
		this.withClient.withPropertyValues("idempotency.redisson.lock.enabled=true").run((context) -> {
			RedissonIdempotencyLock lock = context.getBean(RedissonIdempotencyLock.class);
			assertThat(lock.getWaitTime()).isEqualTo(Duration.ofSeconds(10));
			assertThat(lock.getLeaseTime()).isNull();
			assertThat(lock.getKeyPrefix()).isEqualTo("idempotency-lock:");
		});
	}

	@Test
	void applicationStoreAndLockBeansWin() {
		IdempotencyLock own = (keys, lease) -> () -> {
		};
		this.withClient.withBean("ownStore", IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.withBean("ownLock", IdempotencyLock.class, () -> own)
			.withPropertyValues("idempotency.store.type=redisson", "idempotency.redisson.lock.enabled=true")
			.run((context) -> {
				assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(InMemoryIdempotencyStore.class);
				assertThat(context).getBean(IdempotencyLock.class).isSameAs(own);
				assertThat(context).doesNotHaveBean(RedissonIdempotencyStore.class);
			});
	}

	@Test
	void withoutRedissonOnTheClassPathNothingIsConfigured() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedissonClient.class))
			.withPropertyValues("idempotency.redisson.lock.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyLock.class)
				.doesNotHaveBean(IdempotencyRedissonProperties.class)
				.doesNotHaveBean(RedissonFailureTypes.class));
	}

	@Test
	void redissonOutagesAreTheInfrastructures() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedissonFailureTypes.class);
			assertThat(context.getBean(FailureClassifier.class)
				.classify(new IdempotencyStoreException("claim failed", new RedisTimeoutException("timed out"))))
				.isEqualTo(FailureKind.INFRASTRUCTURE);
		});
	}

	@Test
	void clientIsBuiltFromSpringDataRedisProperties() {
		MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", "redis.internal")
			.withProperty("spring.data.redis.port", "6380")
			.withProperty("spring.data.redis.database", "3")
			.withProperty("spring.data.redis.username", "app")
			.withProperty("spring.data.redis.password", "secret")
			.withProperty("spring.data.redis.ssl.enabled", "true")
			.withProperty("spring.data.redis.timeout", "2s")
			.withProperty("spring.data.redis.connect-timeout", "500ms");
		Config config = SpringDataRedisClients.config(environment);
		SingleServerConfig server = config.useSingleServer();
		assertThat(server.getAddress()).isEqualTo("rediss://redis.internal:6380");
		assertThat(server.getDatabase()).isEqualTo(3);
		assertThat(config.getUsername()).isEqualTo("app");
		assertThat(config.getPassword()).isEqualTo("secret");
		assertThat(server.getTimeout()).isEqualTo(2_000);
		assertThat(server.getConnectTimeout()).isEqualTo(500);
	}

	@Test
	void clientDefaultsToLocalhost() {
		Config config = SpringDataRedisClients.config(new MockEnvironment());
		assertThat(config.useSingleServer().getAddress()).isEqualTo("redis://localhost:6379");
		assertThat(config.useSingleServer().getDatabase()).isZero();
		assertThat(config.getUsername()).isNull();
	}

	@Test
	void clusterNodesMakeAClusterClient() {
		MockEnvironment environment = new MockEnvironment()
			.withProperty("spring.data.redis.cluster.nodes", "10.0.0.1:7000, 10.0.0.2:7001")
			.withProperty("spring.data.redis.host", "ignored")
			.withProperty("spring.data.redis.password", "secret")
			.withProperty("spring.data.redis.timeout", "2s");
		Config config = SpringDataRedisClients.config(environment);
		assertThat(config.isClusterConfig()).isTrue();
		ClusterServersConfig cluster = config.useClusterServers();
		assertThat(cluster.getNodeAddresses()).containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7001");
		assertThat(config.getPassword()).isEqualTo("secret");
		assertThat(cluster.getTimeout()).isEqualTo(2_000);
	}

	@Test
	void sentinelMasterMakesASentinelClientAndWinsOverClusterNodesAsInSpringBoot() {
		MockEnvironment environment = new MockEnvironment()
			.withProperty("spring.data.redis.sentinel.master", "mymaster")
			.withProperty("spring.data.redis.sentinel.nodes", "10.0.0.1:26379,10.0.0.2:26379")
			.withProperty("spring.data.redis.sentinel.password", "sentinel-secret")
			.withProperty("spring.data.redis.cluster.nodes", "10.0.0.9:7000")
			.withProperty("spring.data.redis.database", "2")
			.withProperty("spring.data.redis.password", "secret")
			.withProperty("spring.data.redis.ssl.enabled", "true");
		Config config = SpringDataRedisClients.config(environment);
		assertThat(config.isSentinelConfig()).isTrue();
		SentinelServersConfig sentinel = config.useSentinelServers();
		assertThat(sentinel.getMasterName()).isEqualTo("mymaster");
		assertThat(sentinel.getSentinelAddresses()).containsExactly("rediss://10.0.0.1:26379",
				"rediss://10.0.0.2:26379");
		assertThat(sentinel.getSentinelPassword()).isEqualTo("sentinel-secret");
		assertThat(config.getPassword()).isEqualTo("secret");
		assertThat(sentinel.getDatabase()).isEqualTo(2);
	}

}
