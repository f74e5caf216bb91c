package dev.idempotency.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.IdempotencyTransactionManagerException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import static dev.idempotency.testsupport.Causes.causeOfType;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Start-up checks of {@code @Idempotent} methods: key expressions and attributes that cannot work,
 * default namespaces two methods would share, and the transaction manager each store gets.
 */
class IdempotentMethodsVerifierTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void keyExpressionThatDoesNotParseFailsStartUpWithTheMethodTheExpressionAndTheReason() {
		this.contextRunner.withUserConfiguration(JdbcTransactionManagerConfiguration.class)
			.withBean(TypoHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("TypoHandler#handle")
					.hasMessageContaining("'#event.orderId)'")
					.hasMessageContaining("does not parse");
			});
	}

	@Test
	void malformedLeaseFailsStartUp() {
		this.contextRunner.withUserConfiguration(JdbcTransactionManagerConfiguration.class)
			.withBean(MalformedLeaseHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("lease = \"soon\"");
			});
	}

	@Test
	void methodsThatWouldShareADefaultNamespaceFailStartUp() {
		this.contextRunner.withUserConfiguration(JdbcTransactionManagerConfiguration.class)
			.withBean(OverloadedHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("would share the default namespace 'OverloadedHandler#handle'");
			});
	}

	@Test
	void methodsThatNameOneNamespaceOnPurposeStart() {
		this.contextRunner.withUserConfiguration(JdbcTransactionManagerConfiguration.class)
			.withBean(SharedNamespaceHandler.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void amongSeveralTransactionManagersTheOneOfTheStoresDataSourceIsUsed() {
		this.contextRunner.withUserConfiguration(JdbcAndForeignTransactionManagersConfiguration.class)
			.withBean(Handler.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(Handler.class).handle("k-1");
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record WHERE idempotency_key = 'k-1'",
						Integer.class))
					.isOne();
				assertThat(context.getBean(ForeignTransactionManager.class).begun).isZero();
			});
	}

	@Test
	void namedTransactionManagerThatDoesNotManageTheStoresDataSourceFailsStartUpWithWhatToConfigure() {
		this.contextRunner.withUserConfiguration(JdbcAndForeignTransactionManagersConfiguration.class)
			.withPropertyValues("idempotency.transaction-manager=foreignTransactionManager")
			.withBean(Handler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				IdempotencyTransactionManagerException failure = causeOfType(context.getStartupFailure(),
						IdempotencyTransactionManagerException.class);
				assertThat(failure).hasMessageContaining(
						"'foreignTransactionManager' (ForeignTransactionManager) (idempotency.transaction-manager) "
								+ "does not manage it");
				FailureAnalysis analysis = new IdempotencyTransactionManagerFailureAnalyzer().analyze(failure);
				assertThat(analysis.getDescription()).contains("Store 'jdbc'");
				assertThat(analysis.getAction()).contains("idempotency.transaction-manager")
					.contains("kafkaTransactionManager");
			});
	}

	@Test
	void onlyTransactionManagerOfAnotherDataSourceFailsStartUp() {
		this.contextRunner.withUserConfiguration(OtherDataSourceTransactionManagerConfiguration.class)
			.withBean(Handler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IdempotencyTransactionManagerException.class))
					.hasMessageContaining("(the only transaction manager) does not manage it");
			});
	}

	@Test
	void severalTransactionManagersNoneOfWhichManagesTheStoresDataSourceFailStartUp() {
		this.contextRunner.withUserConfiguration(TwoForeignTransactionManagersConfiguration.class)
			.withBean(Handler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IdempotencyTransactionManagerException.class))
					.hasMessageContaining("none of the transaction managers");
			});
	}

	private static DataSource otherH2() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		dataSource.setUser("sa");
		return dataSource;
	}

	@Configuration(proxyBeanMethods = false)
	static class JdbcTransactionManagerConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JdbcAndForeignTransactionManagersConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ForeignTransactionManager foreignTransactionManager() {
			return new ForeignTransactionManager();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherDataSourceTransactionManagerConfiguration {

		@Bean
		PlatformTransactionManager transactionManager() {
			return new DataSourceTransactionManager(otherH2());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoForeignTransactionManagersConfiguration {

		@Bean
		ForeignTransactionManager foreignTransactionManager() {
			return new ForeignTransactionManager();
		}

		@Bean
		PlatformTransactionManager otherDataSourceTransactionManager() {
			return new DataSourceTransactionManager(otherH2());
		}

	}

	/** Stands in for a transaction manager of another resource, such as Kafka's. */
	static class ForeignTransactionManager extends AbstractPlatformTransactionManager {

		private int begun;

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun++;
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

	static class Handler {

		@Idempotent(key = "#id")
		void handle(String id) {
		}

	}

	static class TypoHandler {

		@Idempotent(key = "#event.orderId)")
		void handle(Object event) {
		}

	}

	static class MalformedLeaseHandler {

		@Idempotent(key = "#id", lease = "soon")
		void handle(String id) {
		}

	}

	static class OverloadedHandler {

		@Idempotent(key = "#id")
		void handle(String id) {
		}

		@Idempotent(key = "#id")
		void handle(String id, int points) {
		}

	}

	static class SharedNamespaceHandler {

		@Idempotent(key = "#id", namespace = "orders")
		void handle(String id) {
		}

		@Idempotent(key = "#id", namespace = "orders")
		void handle(String id, int points) {
		}

	}

}
