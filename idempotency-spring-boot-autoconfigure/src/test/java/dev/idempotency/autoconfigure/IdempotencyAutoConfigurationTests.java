package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.metrics.MicrometerIdempotencyListener;
import dev.idempotency.metrics.autoconfigure.IdempotencyMetricsAutoConfiguration;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcDataSourceScriptDatabaseInitializer;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcProperties;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuit;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import dev.idempotency.support.IdempotencyPurgeJob;
import dev.idempotency.support.IdempotencyTransactionManagerException;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.InMemoryIdempotencyStore;
import dev.idempotency.support.NoIdempotencyStoreException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.testsupport.Causes.causeOfType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link IdempotencyStoreAutoConfiguration}, {@link IdempotencyAutoConfiguration} and
 * {@link IdempotencyMetricsAutoConfiguration}.
 */
class IdempotencyAutoConfigurationTests {

	// Boot 4.1 has no SqlInitializationAutoConfiguration; DataSourceInitializationAutoConfiguration
	// is what imports DatabaseInitializationDependencyConfigurer for JDBC applications.
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyMetricsAutoConfiguration.class));

	private final ApplicationContextRunner jdbcContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void jdbcStoreIsUsedWhenThereIsASingleDataSource() {
		this.jdbcContextRunner.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
			.isInstanceOf(JdbcIdempotencyStore.class));
	}

	@Test
	void embeddedDatabaseGetsTheDedupTable() {
		this.jdbcContextRunner.run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
		});
	}

	@Test
	void schemaIsNotCreatedWhenInitializeSchemaIsNever() {
		this.jdbcContextRunner
			// A table that is missing on purpose: the schema check would stop start-up.
			.withPropertyValues("idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.schema-check=off",
					"idempotency.fail-closed.probe-interval=50ms", "idempotency.fail-closed.max-wait=200ms")
			.run((context) -> {
			assertThat(context).hasSingleBean(JdbcIdempotencyStore.class)
				.doesNotHaveBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class);
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThatExceptionOfType(BadSqlGrammarException.class)
				.isThrownBy(() -> jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class));
		});
	}

	@Test
	void thereIsNoStoreWithoutADataSourceOrAStoreType() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(IdempotencyStore.class)
			.hasSingleBean(IdempotentAdvisor.class));
	}

	@Test
	void inMemoryStoreIsUsedWhenAsked() {
		this.contextRunner.withPropertyValues("idempotency.store.type=in-memory")
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
				.isInstanceOf(InMemoryIdempotencyStore.class));
	}

	@Test
	void inMemoryStoreWinsOverADataSourceWhenAsked() {
		this.jdbcContextRunner.withPropertyValues("idempotency.store.type=in-memory").run((context) -> {
			assertThat(context).hasSingleBean(DataSource.class);
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(InMemoryIdempotencyStore.class);
			assertThat(context).doesNotHaveBean(IdempotencyPurgeJob.class);
		});
	}

	@Test
	void inMemoryStoreIsUsedWhateverTheSpellingOfTheEnumValue() {
		this.contextRunner.withPropertyValues("idempotency.store.type=IN_MEMORY")
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class)
				.isInstanceOf(InMemoryIdempotencyStore.class));
	}

	@Test
	void userDefinedStoreBacksOffTheAutoConfiguredOne() {
		this.jdbcContextRunner.withBean("myStore", IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyStore.class).hasBean("myStore");
				assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class)
					.doesNotHaveBean(IdempotencyPurgeJob.class)
					.doesNotHaveBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class);
			});
	}

	@Test
	void jdbcStoreBacksOffWithTwoDataSourcesAndNoPrimary() {
		this.contextRunner.withBean("first", DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.withBean("second", DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void idempotentMethodWithoutStoreFailsStartUpWithNoIdempotencyStoreException() {
		this.contextRunner.withBean(CountingHandler.class).run((context) -> {
			assertThat(context).hasFailed();
			NoIdempotencyStoreException ex = causeOfType(context.getStartupFailure(),
					NoIdempotencyStoreException.class);
			assertThat(ex.getMethods()).containsExactly("CountingHandler#handle");
			assertThat(ex.getCandidates()).isZero();
		});
	}

	@Test
	void contextWithoutIdempotentMethodsStartsWithoutStore() {
		this.contextRunner.withBean(PlainService.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void twoStoresWithoutPrimaryFailStartUp() {
		this.contextRunner.withBean("firstStore", RecordingStore.class, RecordingStore::new)
			.withBean("secondStore", RecordingStore.class, RecordingStore::new)
			.withBean(CountingHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				NoIdempotencyStoreException ex = causeOfType(context.getStartupFailure(),
						NoIdempotencyStoreException.class);
				assertThat(ex.getCandidates()).isEqualTo(2);
				assertThat(ex.getMethods()).containsExactly("CountingHandler#handle");
			});
	}

	@Test
	void primaryStoreIsUsedWhenThereAreSeveral() {
		this.contextRunner.withBean("firstStore", RecordingStore.class, RecordingStore::new)
			.withBean("secondStore", RecordingStore.class,
					RecordingStore::new, (definition) -> definition.setPrimary(true))
			.withBean(CountingHandler.class)
			.run((context) -> {
				context.getBean(CountingHandler.class).handle("a");
				assertThat(context.getBean("firstStore", RecordingStore.class).claims).isEmpty();
				assertThat(context.getBean("secondStore", RecordingStore.class).claims).hasSize(1);
			});
	}

	@Test
	void storeNamedOnTheAnnotationIsUsed() {
		this.contextRunner.withBean("firstStore", RecordingStore.class, RecordingStore::new)
			.withBean("secondStore", RecordingStore.class, RecordingStore::new)
			.withBean(SecondStoreHandler.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(SecondStoreHandler.class).handle("a");
				assertThat(context.getBean("firstStore", RecordingStore.class).claims).isEmpty();
				assertThat(context.getBean("secondStore", RecordingStore.class).claims)
					.containsExactly(new IdempotencyKey("SecondStoreHandler#handle", "a"));
			});
	}

	@Test
	void storeNamedOnTheAnnotationThatDoesNotExistFailsStartUp() {
		this.contextRunner.withPropertyValues("idempotency.store.type=in-memory")
			.withBean(MissingStoreHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("noSuchStore")
					.hasMessageContaining("MissingStoreHandler#handle");
			});
	}

	@Test
	void malformedRetentionFailsStartUp() {
		this.contextRunner.withPropertyValues("idempotency.store.type=in-memory")
			.withBean(MalformedRetentionHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("retention = \"banana\"");
			});
	}

	@Test
	void jdbcStoreWithoutAnyTransactionManagerRunsItsMethodsInLeasedMode() {
		this.contextRunner.withBean(DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.withBean(CountingHandler.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				CountingHandler handler = context.getBean(CountingHandler.class);
				handler.handle("a");
				handler.handle("a");
				assertThat(handler.calls()).isEqualTo(1);
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT status FROM idempotency_record WHERE idempotency_key = 'a'", String.class))
					.as("completed by the leased side")
					.isEqualTo("COMPLETED");
			});
	}

	@Test
	void transactionalModeWithoutTransactionManagerFailsStartUp() {
		this.contextRunner.withBean(DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.withBean(TransactionalModeHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IdempotencyTransactionManagerException.class))
					.hasMessageContaining("there is no PlatformTransactionManager");
			});
	}

	@Test
	void disabledByPropertyLeavesMethodsUnproxied() {
		this.jdbcContextRunner.withPropertyValues("idempotency.enabled=false")
			.withBean(CountingHandler.class)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(IdempotentAdvisor.class)
					.doesNotHaveBean(IdempotencyStore.class);
				CountingHandler handler = context.getBean(CountingHandler.class);
				assertThat(AopUtils.isAopProxy(handler)).isFalse();
				handler.handle("a");
				handler.handle("a");
				assertThat(handler.calls()).isEqualTo(2);
			});
	}

	@Test
	void advisorOrderIsJustOutsideTransactionsByDefault() {
		this.contextRunner.run((context) -> assertThat(context.getBean(IdempotentAdvisor.class).getOrder())
			.isEqualTo(IdempotencyProperties.DEFAULT_ADVISOR_ORDER));
	}

	@Test
	void advisorOrderComesFromProperty() {
		this.contextRunner.withPropertyValues("idempotency.advisor-order=42")
			.run((context) -> assertThat(context.getBean(IdempotentAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void jdbcStoreBacksOffWithoutSpringJdbc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.withBean(DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.withBean(PlainService.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyJdbcProperties.class));
	}

	@Test
	void jdbcStoreBacksOffWithoutSpringBootJdbc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.jdbc"))
			.withBean(DataSource.class, IdempotencyAutoConfigurationTests::h2)
			.withBean(PlainService.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStore.class)
				.doesNotHaveBean(IdempotencyJdbcProperties.class));
	}

	@Test
	void metricsListenerIsRegisteredWithAMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.run((context) -> assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void metricsListenerIsNotRegisteredWithoutAMeterRegistry() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void metricsListenerIsNotRegisteredWhenMetricsAreDisabled() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void invocationsAreRecordedInTheMeterRegistry() {
		this.jdbcContextRunner.withBean(SimpleMeterRegistry.class).withBean(CountingHandler.class).run((context) -> {
			CountingHandler handler = context.getBean(CountingHandler.class);
			handler.handle("a");
			handler.handle("a");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(IdempotencyMeters.INVOCATIONS)
				.tag(IdempotencyMeters.OUTCOME_TAG, "processed")
				.tag(IdempotencyMeters.STORE_TAG, "jdbc")
				.timer()
				.count()).isOne();
			assertThat(registry.get(IdempotencyMeters.INVOCATIONS)
				.tag(IdempotencyMeters.OUTCOME_TAG, "duplicate")
				.timer()
				.count()).isOne();
		});
	}

	@Test
	void purgeJobIsRegisteredByDefault() {
		this.jdbcContextRunner.run((context) -> assertThat(context).hasSingleBean(IdempotencyPurgeJob.class));
	}

	@Test
	void purgeJobIsOffByProperty() {
		this.jdbcContextRunner.withPropertyValues("idempotency.jdbc.purge.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(JdbcIdempotencyStore.class)
				.doesNotHaveBean(IdempotencyPurgeJob.class));
	}

	@Test
	void invalidTableNameFailsStartUp() {
		this.jdbcContextRunner.withPropertyValues("idempotency.jdbc.table-name=drop table x;").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causeOfType(context.getStartupFailure(), IllegalArgumentException.class))
				.hasMessageContaining("drop table x;")
				.hasMessageContaining("not a plain SQL identifier");
		});
	}

	@Test
	void annotatedBeanIsProxiedAndDeduplicates() {
		this.jdbcContextRunner.withBean(CountingHandler.class).run((context) -> {
			CountingHandler handler = context.getBean(CountingHandler.class);
			assertThat(AopUtils.isAopProxy(handler)).isTrue();
			assertThat(handler.handle("a")).isEqualTo(1);
			assertThat(handler.handle("a")).as("skipped duplicate returns the primitive default").isZero();
			assertThat(handler.calls()).isEqualTo(1);
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isOne();
		});
	}

	// Nothing creates proxies when Boot's AOP auto-configuration is off and there is no transaction
	// manager: the methods would silently run without deduplication, so start-up must fail.
	@Test
	void unproxiedAnnotatedBeanFailsStartUp() {
		this.contextRunner.withPropertyValues("spring.aop.auto=false", "idempotency.store.type=in-memory")
			.withBean(CountingHandler.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("is not proxied")
				.hasMessageContaining("spring.aop.auto"));
	}

	@Test
	void differentKeysAreEachProcessed() {
		this.jdbcContextRunner.withBean(CountingHandler.class).run((context) -> {
			CountingHandler handler = context.getBean(CountingHandler.class);
			handler.handle("a");
			handler.handle("b");
			assertThat(handler.calls()).isEqualTo(2);
		});
	}

	@Test
	void failClosedIsOnByDefaultWithTheDefaultClassifierAndStoreProbes() {
		this.jdbcContextRunner.withPropertyValues("idempotency.fail-closed.probe-interval=50ms").run((context) -> {
			assertThat(context).hasSingleBean(FailClosedCircuits.class).hasSingleBean(DefaultFailureClassifier.class);
			FailClosedCircuits circuits = context.getBean(FailClosedCircuits.class);
			assertThat(circuits.settings())
				.isEqualTo(new FailClosedSettings(Duration.ofMillis(50), Duration.ofSeconds(30)));
			FailClosedCircuit circuit = circuits.circuit("orders");
			circuit.open(new IllegalStateException("database down"));
			// The probe queries the dedup table, which the embedded database has.
			assertThat(circuit.awaitRecovery(() -> true, () -> {
			})).isTrue();
		});
	}

	@Test
	void failClosedOffLeavesNoCircuitsButKeepsTheClassifierForTheOutbox() {
		this.jdbcContextRunner.withPropertyValues("idempotency.fail-closed.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FailClosedCircuits.class)
				.hasSingleBean(FailureClassifier.class));
	}

	@Test
	void failClosedPropertiesExtendTheClassifier() {
		this.jdbcContextRunner
			.withPropertyValues("idempotency.fail-closed.infrastructure-exceptions=java.util.concurrent.TimeoutException",
					"idempotency.fail-closed.probe-interval=500ms", "idempotency.fail-closed.max-wait=5s")
			.run((context) -> {
				FailClosedCircuits circuits = context.getBean(FailClosedCircuits.class);
				assertThat(circuits.isInfrastructure(new RuntimeException(new java.util.concurrent.TimeoutException())))
					.isTrue();
				assertThat(circuits.settings())
					.isEqualTo(new FailClosedSettings(Duration.ofMillis(500), Duration.ofSeconds(5)));
			});
	}

	@Test
	void applicationClassifierReplacesTheDefault() {
		this.jdbcContextRunner
			.withBean("myClassifier", FailureClassifier.class, () -> (failure) -> FailureKind.INFRASTRUCTURE)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DefaultFailureClassifier.class);
				assertThat(context.getBean(FailClosedCircuits.class).isInfrastructure(new IllegalStateException()))
					.isTrue();
			});
	}

	@Test
	void probeOfAStoreWithoutItsTableFails() {
		this.jdbcContextRunner
			// A table that is missing on purpose: the schema check would stop start-up.
			.withPropertyValues("idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.schema-check=off",
					"idempotency.fail-closed.probe-interval=50ms", "idempotency.fail-closed.max-wait=200ms")
			.run((context) -> {
				FailClosedCircuit circuit = context.getBean(FailClosedCircuits.class).circuit("orders");
				circuit.open(new IllegalStateException("database down"));
				assertThat(circuit.awaitRecovery(() -> true, () -> {
				})).isFalse();
			});
	}

	private static DataSource h2() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		dataSource.setUser("sa");
		return dataSource;
	}

	static class CountingHandler {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		int handle(String id) {
			return this.calls.incrementAndGet();
		}

		// Read through a method: the fields of a CGLIB proxy are not the target's.
		int calls() {
			return this.calls.get();
		}

	}

	static class TransactionalModeHandler {

		@Idempotent(key = "#id", mode = IdempotencyMode.TRANSACTIONAL)
		void handle(String id) {
		}

	}

	static class SecondStoreHandler {

		@Idempotent(key = "#p0", store = "secondStore")
		void handle(String id) {
		}

	}

	static class MissingStoreHandler {

		@Idempotent(key = "#p0", store = "noSuchStore")
		void handle(String id) {
		}

	}

	static class MalformedRetentionHandler {

		@Idempotent(key = "#p0", retention = "banana")
		void handle(String id) {
		}

	}

	static class PlainService {

		void handle(String id) {
		}

	}

	static class RecordingStore extends InMemoryIdempotencyStore {

		final List<IdempotencyKey> claims = new CopyOnWriteArrayList<>();

		@Override
		public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
			this.claims.add(key);
			return super.claim(key, lease, retention);
		}

	}

}
