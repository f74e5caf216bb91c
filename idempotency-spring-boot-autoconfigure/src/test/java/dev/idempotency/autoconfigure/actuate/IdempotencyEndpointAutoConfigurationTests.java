package dev.idempotency.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.kafka.DeadLetterRedrive;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaAutoConfiguration;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaEndpointAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxEndpointAutoConfiguration;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamEndpointAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.kafka.core.KafkaOperations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link IdempotencyEndpointAutoConfiguration}: the endpoint with Actuator, a store
 * and exposure; none without any of them or with its access {@code none}; a bean of the
 * application's own wins; reads by default, writes only when its access is raised; with the
 * technologies' endpoint auto-configurations beside it, the outbox section and the dead letters of the
 * transports whose adapters run.
 */
class IdempotencyEndpointAutoConfigurationTests {

	// Access values in upper case: a context runner's environment has no lenient enum conversion
	// (a SpringApplication's does, so applications write unrestricted, read-only, none).
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyOutboxEndpointAutoConfiguration.class,
				IdempotencyKafkaEndpointAutoConfiguration.class, IdempotencyRedisStreamEndpointAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory", "management.endpoints.web.exposure.include=idempotency");

	private final ApplicationContextRunner withJdbcAndOutbox = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class,
				IdempotencyOutboxEndpointAutoConfiguration.class, IdempotencyKafkaEndpointAutoConfiguration.class,
				IdempotencyRedisStreamEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
				"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.enabled=false",
				"idempotency.jdbc.purge.enabled=false", "management.endpoints.web.exposure.include=idempotency");

	@Test
	void endpointIsProvidedWhenExposed() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyEndpoint.class);
			IdempotencyEndpoint.Overview overview = context.getBean(IdempotencyEndpoint.class).overview();
			assertThat(overview.stores()).containsOnlyKeys("idempotencyStore");
			assertThat(overview.stores().get("idempotencyStore").inspectable()).isTrue();
			assertThat(overview.outbox()).isNull();
			assertThat(overview.parkedKeys()).isFalse();
		});
	}

	@Test
	void endpointIsProvidedWhenExposedOverJmx() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
					IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
					IdempotencyEndpointAutoConfiguration.class, IdempotencyOutboxEndpointAutoConfiguration.class,
					IdempotencyKafkaEndpointAutoConfiguration.class,
					IdempotencyRedisStreamEndpointAutoConfiguration.class))
			.withPropertyValues("idempotency.store.type=in-memory", "spring.jmx.enabled=true",
					"management.endpoints.jmx.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class));
	}

	@Test
	void noEndpointWhenNotExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void noEndpointWhenItsAccessIsNone() {
		this.contextRunner.withPropertyValues("management.endpoint.idempotency.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void noEndpointWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void noEndpointWithoutAStore() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyEndpointAutoConfiguration.class, IdempotencyOutboxEndpointAutoConfiguration.class,
					IdempotencyKafkaEndpointAutoConfiguration.class,
					IdempotencyRedisStreamEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void anEndpointOfTheApplicationsOwnWins() {
		this.contextRunner.withUserConfiguration(OwnEndpoint.class).run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyEndpoint.class);
			assertThat(context.getBean(IdempotencyEndpoint.class)).isSameAs(context.getBean("ownEndpoint"));
		});
	}

	@Test
	void aSectionOfTheApplicationsOwnAddsAPathBesideTheBuiltInOnes() {
		this.contextRunner.withUserConfiguration(OwnSection.class).run((context) -> {
			assertThat(context.getBeansOfType(IdempotencyEndpointSection.class)).hasSize(5);
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			assertThat(endpoint.list("audit", null, null).getBody()).isEqualTo("audit trail");
			assertThat(endpoint.list("parked", null, null).getBody())
				.isEqualTo(new IdempotencyEndpoint.Problem("The store handles no parked keys"));
			assertThat(endpoint.overview().stores()).containsOnlyKeys("idempotencyStore");
		});
	}

	@Test
	void aSectionOfTheApplicationsOwnReplacesTheStartersOfTheSameName() {
		this.contextRunner.withUserConfiguration(OwnKeysSection.class).run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			assertThat(endpoint.lookup("keys", "points", new String[] { "4711" }, null, null, null, null).getBody())
				.isEqualTo("own keys");
			assertThat(endpoint.overview().stores()).isEmpty();
		});
	}

	@Test
	void readsAreAllowedByDefaultAndWritesOnlyWhenTheAccessIsRaised() {
		Endpoint endpoint = AnnotationUtils.findAnnotation(IdempotencyEndpoint.class, Endpoint.class);
		assertThat(endpoint).isNotNull();
		assertThat(endpoint.id()).isEqualTo("idempotency");
		assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
		EndpointId id = EndpointId.of("idempotency");
		this.contextRunner.run((context) -> assertThat(
				context.getBean(EndpointAccessResolver.class).accessFor(id, endpoint.defaultAccess()))
			.isEqualTo(Access.READ_ONLY));
		this.contextRunner.withPropertyValues("management.endpoint.idempotency.access=UNRESTRICTED")
			.run((context) -> assertThat(
					context.getBean(EndpointAccessResolver.class).accessFor(id, endpoint.defaultAccess()))
				.isEqualTo(Access.UNRESTRICTED));
		// Capped by the application-wide maximum.
		this.contextRunner
			.withPropertyValues("management.endpoint.idempotency.access=UNRESTRICTED",
					"management.endpoints.access.max-permitted=READ_ONLY")
			.run((context) -> assertThat(
					context.getBean(EndpointAccessResolver.class).accessFor(id, endpoint.defaultAccess()))
				.isEqualTo(Access.READ_ONLY));
	}

	@Test
	void withTheJdbcStoreAndTheOutboxEveryOperationHasItsBackend() {
		this.withJdbcAndOutbox.run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyEndpoint.class);
			IdempotencyEndpoint.Overview overview = context.getBean(IdempotencyEndpoint.class).overview();
			assertThat(overview.stores()).containsOnlyKeys("idempotencyStore");
			assertThat(overview.stores().get("idempotencyStore"))
				.isEqualTo(new IdempotencyEndpoint.StoreDescriptor("jdbc", true));
			assertThat(overview.outbox()).isNotNull();
			assertThat(overview.outbox().dead()).isZero();
			assertThat(overview.parkedKeys()).isTrue();
		});
	}

	@Test
	void kafkaDeadLettersAreReDrivenWhenTheKafkaAdapterRuns() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
					IdempotencyKafkaAutoConfiguration.class))
			.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:9")
			.run((context) -> {
				assertThat(context).hasSingleBean(DeadLetterRedrive.class).hasSingleBean(DeadLetterSource.class);
				assertThat(context.getBean(DeadLetterRedrive.class).deadLetterTopic("orders"))
					.isEqualTo("orders.DLT");
				assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters())
					.containsExactly("kafka");
			});
	}

	@Test
	void theDeadLetterSuffixIsTheKafkaAdaptersOwn() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
					IdempotencyKafkaAutoConfiguration.class))
			.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:9",
					"idempotency.kafka.dead-letter.suffix=-dead")
			.run((context) -> assertThat(context.getBean(DeadLetterRedrive.class).deadLetterTopic("orders"))
				.isEqualTo("orders-dead"));
	}

	@Test
	void redisDeadLettersAreReDrivenWhenTheStreamAdapterRuns() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					IdempotencyRedisStreamAutoConfiguration.class))
			.withPropertyValues("idempotency.redis.stream.dead-letter.suffix=:dead")
			.run((context) -> {
				assertThat(context).hasSingleBean(DeadLetterStreamRedrive.class).hasSingleBean(DeadLetterSource.class);
				assertThat(context.getBean(DeadLetterStreamRedrive.class).deadLetterStream("orders"))
					.isEqualTo("orders:dead");
				assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters())
					.containsExactly("redis");
			});
	}

	@Test
	void withoutKafkaAndRedisTheEndpointHasNoDeadLetters() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
					IdempotencyKafkaAutoConfiguration.class, DataRedisAutoConfiguration.class,
					IdempotencyRedisStreamAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(KafkaOperations.class, StringRedisTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class);
				assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters()).isEmpty();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnSection {

		@Bean
		IdempotencyEndpointSection auditSection() {
			return new IdempotencyEndpointSection() {

				@Override
				public String name() {
					return "audit";
				}

				@Override
				public WebEndpointResponse<Object> read(Request request) {
					return new WebEndpointResponse<>("audit trail", WebEndpointResponse.STATUS_OK);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnKeysSection {

		@Bean
		IdempotencyEndpointSection ownKeysSection() {
			return new IdempotencyEndpointSection() {

				@Override
				public String name() {
					return "keys";
				}

				@Override
				public WebEndpointResponse<Object> read(Request request) {
					return new WebEndpointResponse<>("own keys", WebEndpointResponse.STATUS_OK);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEndpoint {

		@Bean
		IdempotencyEndpoint ownEndpoint() {
			return new IdempotencyEndpoint(List.of(new KeysSection(Map.of("store", new InMemoryIdempotencyStore()))));
		}

	}

}
