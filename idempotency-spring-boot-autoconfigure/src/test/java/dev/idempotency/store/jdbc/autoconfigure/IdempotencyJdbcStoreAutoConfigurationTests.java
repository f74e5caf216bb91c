package dev.idempotency.store.jdbc.autoconfigure;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyPurgeJob;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyJdbcStoreAutoConfiguration} on its own, without the store choice's
 * auto-configuration: the JDBC store and its parts on a single {@code DataSource}, under the
 * conditions it had inside that one (the interception on, no store of the application's own, the
 * type {@code jdbc} or unset, spring-jdbc on the class path).
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyJdbcStoreAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.jdbc.purge.interval=1h");

	@Test
	void theJdbcStoreAndItsPartsOnASingleDataSource() {
		this.contextRunner.run((context) -> {
			assertThat(context).getBean("idempotencyStore").isInstanceOf(JdbcIdempotencyStore.class);
			assertThat(context).hasSingleBean(IdempotencyJdbcProperties.class)
				.hasSingleBean(IdempotencyReconcilerProperties.class)
				.hasSingleBean(IdempotencyJdbcDataSourceScriptDatabaseInitializer.class)
				.hasSingleBean(IdempotencyPurgeJob.class)
				.hasBean("idempotencyMySqlConnectionAdvisory");
		});
	}

	@Test
	void backsOffWhenAnotherTypeIsChosenTheInterceptionIsOffOrTheApplicationHasAStore() {
		for (String property : new String[] { "idempotency.store.type=redis", "idempotency.store.type=in-memory",
				"idempotency.enabled=false" }) {
			this.contextRunner.withPropertyValues(property)
				.run((context) -> assertThat(context).hasNotFailed()
					.doesNotHaveBean(IdempotencyStore.class)
					.doesNotHaveBean(IdempotencyJdbcProperties.class));
		}
		this.contextRunner.withBean("ownStore", IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.doesNotHaveBean(JdbcIdempotencyStore.class)
				.doesNotHaveBean(IdempotencyPurgeJob.class));
	}

	@Test
	void backsOffWithoutADataSourceOrSpringJdbc() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyJdbcStoreAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyStore.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyStore.class));
	}

	@Test
	void startUpFailsByDefaultWhenTheTableIsMissingAndSaysHowToFixIt() {
		this.contextRunner.withPropertyValues("idempotency.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("The idempotency table 'idempotency_record' differs from the shipped schema")
				.hasMessageContaining("table idempotency_record not found")
				.hasMessageContaining("classpath:dev/idempotency/store/jdbc/schema-h2.sql")
				.hasMessageContaining("idempotency.jdbc.initialize-schema=always"));
	}

	@Test
	void schemaCheckWarnLogsTheDifferencesAndStarts(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.schema-check=warn")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("table idempotency_record not found").contains("schema-check=warn");
	}

	@Test
	void schemaCheckOffDoesNotLook(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.schema-check=off")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("differs from the shipped schema");
	}

}
