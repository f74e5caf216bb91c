package dev.idempotency.autoconfigure.health;

import java.time.Duration;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxHealthAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxHealthIndicator;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamHealthAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyStreamsHealthIndicator;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.stream.MapRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Conditions of {@link IdempotencyHealthAutoConfiguration} and of the technologies' health
 * auto-configurations beside it: each indicator with and without its feature, switched off by Actuator's property, replaced by a bean of the same name, and none at all
 * without the health module. Nothing here connects to Redis (no stream listener is declared).
 */
class IdempotencyHealthAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class,
				IdempotencyRedisStreamHealthAutoConfiguration.class, IdempotencyOutboxHealthAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory");

	private final ApplicationContextRunner withRedisStreams = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				IdempotencyRedisStreamAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class,
				IdempotencyRedisStreamHealthAutoConfiguration.class, IdempotencyOutboxHealthAutoConfiguration.class));

	private final ApplicationContextRunner withOutbox = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class,
				IdempotencyRedisStreamHealthAutoConfiguration.class, IdempotencyOutboxHealthAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.purge.interval=1h",
				"idempotency.outbox.relay.enabled=false");

	@Test
	void storeAndListenersIndicatorsAreProvidedWithTheHealthModule() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("idempotencyStoreHealthContributor")
				.hasSingleBean(IdempotencyListenersHealthIndicator.class)
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class)
				.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class);
			HealthContributor store = context.getBean("idempotencyStoreHealthContributor", HealthContributor.class);
			assertThat(store).isInstanceOf(IdempotencyStoreHealthIndicator.class);
			Health health = ((HealthIndicator) store).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "in_memory").containsKey("responseTime");
			assertThat(context.getBean(IdempotencyListenersHealthIndicator.class).health().getStatus())
				.isEqualTo(Status.UP);
		});
	}

	@Test
	void nothingWithoutTheHealthModule() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("idempotencyStoreHealthContributor")
				.doesNotHaveBean(IdempotencyListenersHealthIndicator.class)
				.doesNotHaveBean(IdempotencyHealthProperties.class));
	}

	@Test
	void storeIndicatorIsSwitchedOffByActuatorsProperty() {
		this.contextRunner.withPropertyValues("management.health.idempotencystore.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("idempotencyStoreHealthContributor")
				.hasSingleBean(IdempotencyListenersHealthIndicator.class));
	}

	@Test
	void storeIndicatorIsSwitchedOffByTheDashedFormOfActuatorsProperty() {
		this.contextRunner.withPropertyValues("management.health.idempotency-store.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("idempotencyStoreHealthContributor"));
	}

	@Test
	void listenersIndicatorIsSwitchedOffByActuatorsProperty() {
		this.contextRunner.withPropertyValues("management.health.idempotencylisteners.enabled=false")
			.run((context) -> assertThat(context).hasBean("idempotencyStoreHealthContributor")
				.doesNotHaveBean(IdempotencyListenersHealthIndicator.class));
	}

	@Test
	void indicatorsFollowActuatorsDefault() {
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("idempotencyStoreHealthContributor")
				.doesNotHaveBean(IdempotencyListenersHealthIndicator.class));
	}

	@Test
	void listenersIndicatorNeedsFailClosed() {
		this.contextRunner.withPropertyValues("idempotency.fail-closed.enabled=false")
			.run((context) -> assertThat(context).hasBean("idempotencyStoreHealthContributor")
				.doesNotHaveBean(IdempotencyListenersHealthIndicator.class));
	}

	@Test
	void noStoreIndicatorWithoutAStore() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyHealthAutoConfiguration.class,
					IdempotencyRedisStreamHealthAutoConfiguration.class,
					IdempotencyOutboxHealthAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("idempotencyStoreHealthContributor")
				.doesNotHaveBean(IdempotencyListenersHealthIndicator.class)
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class)
				.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
	}

	@Test
	void severalStoresMakeACompositeByBeanName() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyHealthAutoConfiguration.class,
					IdempotencyRedisStreamHealthAutoConfiguration.class,
					IdempotencyOutboxHealthAutoConfiguration.class))
			.withBean("ordersStore", InMemoryIdempotencyStore.class)
			.withBean("paymentsStore", InMemoryIdempotencyStore.class)
			.run((context) -> {
				HealthContributor contributor = context.getBean("idempotencyStoreHealthContributor",
						HealthContributor.class);
				assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
				CompositeHealthContributor composite = (CompositeHealthContributor) contributor;
				assertThat(composite.getContributor("ordersStore")).isInstanceOf(IdempotencyStoreHealthIndicator.class);
				assertThat(composite.getContributor("paymentsStore"))
					.isInstanceOf(IdempotencyStoreHealthIndicator.class);
				assertThat(composite.stream()).hasSize(2);
			});
	}

	@Test
	void applicationIndicatorOfTheSameNameWins() {
		HealthIndicator own = () -> Health.up().build();
		this.contextRunner.withBean("idempotencyStoreHealthContributor", HealthIndicator.class, () -> own)
			.withBean("idempotencyListenersHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> {
				assertThat(context.getBean("idempotencyStoreHealthContributor")).isSameAs(own);
				assertThat(context).doesNotHaveBean(IdempotencyListenersHealthIndicator.class);
			});
	}

	@Test
	void propertiesReachTheIndicators() {
		this.contextRunner.withPropertyValues("idempotency.health.listeners.paused-threshold=0s")
			.run((context) -> assertThat(context.getBean(IdempotencyListenersHealthIndicator.class).health()
				.getDetails()).containsEntry("pausedThreshold", 0L));
	}

	@Test
	void streamsIndicatorIsProvidedWithTheRedisStreamAdapterAndListensToIt() {
		this.withRedisStreams.run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyStreamsHealthIndicator.class);
			assertThat(context.getBeansOfType(DeliveryListener.class).values())
				.containsExactly(context.getBean(IdempotencyStreamsHealthIndicator.class));
			Health health = context.getBean(IdempotencyStreamsHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("inactiveThreshold", 30_000L);
		});
	}

	@Test
	void streamsIndicatorIsSwitchedOffByActuatorsProperty() {
		this.withRedisStreams.withPropertyValues("management.health.idempotencystreams.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
	}

	@Test
	void noStreamsIndicatorWithoutTheRedisStreamAdapter() {
		this.withRedisStreams.withPropertyValues("idempotency.redis.stream.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
	}

	@Test
	void noStreamsIndicatorWithoutTheStreamApiOfSpringDataRedis() {
		// With a registry: only the missing class can keep the indicator out.
		this.withRedisStreams.withClassLoader(new FilteredClassLoader(MapRecord.class))
			.withBean(RedisStreamListenerRegistry.class, () -> mock(RedisStreamListenerRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisStreamListenerRegistry.class)
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
	}

	@Test
	void outboxIndicatorIsProvidedWithTheOutbox() {
		this.withOutbox.withPropertyValues("idempotency.outbox.enabled=true",
				"idempotency.health.outbox.max-backlog=7")
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyOutboxHealthIndicator.class);
				Health health = context.getBean(IdempotencyOutboxHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("pending", 0L)
					.containsEntry("deadRows", 0L)
					.containsEntry("maxBacklog", 7L);
			});
	}

	@Test
	void noOutboxIndicatorWithoutTheOutbox() {
		this.withOutbox.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
	}

	@Test
	void outboxIndicatorIsSwitchedOffByActuatorsProperty() {
		this.withOutbox.withPropertyValues("idempotency.outbox.enabled=true",
				"management.health.idempotencyoutbox.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
	}

	@Test
	void defaultsAreTheDocumentedOnes() {
		IdempotencyHealthProperties properties = new IdempotencyHealthProperties();
		assertThat(properties.getStore().getTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(properties.getListeners().getPausedThreshold()).isEqualTo(Duration.ofMinutes(1));
		assertThat(properties.getStreams().getInactiveThreshold()).isEqualTo(Duration.ofSeconds(30));
		assertThat(properties.getOutbox().getMaxOldestAge()).isEqualTo(Duration.ofMinutes(5));
		assertThat(properties.getOutbox().getMaxBacklog()).isEqualTo(10000);
		assertThat(properties.getOutbox().isDeadRowsDown()).isFalse();
		assertThat(properties.getOutbox().getTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

}
