package dev.idempotency.integration;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.KeyRecord;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-key duplicate accounting ({@code idempotency.duplicate-accounting}) on a real database, in
 * transactional and leased mode: each duplicate delivery counts on its key's record, seen by the
 * endpoint's {@link IdempotencyKeyInspector}; off, nothing is counted.
 */
abstract class AbstractDuplicateAccountingIntegrationTests {

	/** Spring Boot properties that point the DataSource at the database under test. */
	protected abstract String[] dataSourceProperties();

	/** The platform of the schema scripts, e.g. {@code postgresql}. */
	protected abstract String platform();

	@Test
	void duplicatesAreCountedOnTheirKeyInBothModes() {
		try (ConfigurableApplicationContext context = start(true)) {
			Handlers handlers = context.getBean(Handlers.class);
			for (int i = 0; i < 3; i++) {
				handlers.transactional("t-1");
				handlers.leased("l-1");
			}
			IdempotencyKeyInspector inspector = context.getBean(IdempotencyKeyInspector.class);
			KeyRecord transactional = inspector.inspect(new IdempotencyKey("it-dup-tx", "t-1"));
			KeyRecord leased = inspector.inspect(new IdempotencyKey("it-dup-leased", "l-1"));
			assertThat(transactional.duplicates()).isEqualTo(2);
			assertThat(transactional.lastDuplicateAt()).isNotNull();
			assertThat(leased.duplicates()).isEqualTo(2);
			assertThat(handlers.calls()).as("each method ran once").isEqualTo(2);
		}
	}

	@Test
	void offByDefault() {
		try (ConfigurableApplicationContext context = start(false)) {
			Handlers handlers = context.getBean(Handlers.class);
			handlers.transactional("t-2");
			handlers.transactional("t-2");
			KeyRecord record = context.getBean(IdempotencyKeyInspector.class)
				.inspect(new IdempotencyKey("it-dup-tx", "t-2"));
			assertThat(record.duplicates()).isZero();
			assertThat(record.lastDuplicateAt()).isNull();
		}
	}

	private ConfigurableApplicationContext start(boolean accounting) {
		List<String> properties = new ArrayList<>(List.of(dataSourceProperties()));
		properties.add("idempotency.jdbc.initialize-schema=never");
		// The table is created again below, once the context runs.
		properties.add("idempotency.jdbc.schema-check=off");
		properties.add("idempotency.jdbc.purge.enabled=false");
		if (accounting) {
			properties.add("idempotency.duplicate-accounting=true");
		}
		ConfigurableApplicationContext context = new SpringApplicationBuilder(HandlersApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		// Dropped and created again: a table left by an earlier version would hide missing columns.
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(context.getBean(DataSource.class));
		return context;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class HandlersApplication {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		private int calls;

		// Read through a method: the fields of a CGLIB proxy are not the target's.
		int calls() {
			return this.calls;
		}

		@Idempotent(key = "#id", namespace = "it-dup-tx")
		public void transactional(String id) {
			this.calls++;
		}

		@Idempotent(key = "#id", namespace = "it-dup-leased", mode = IdempotencyMode.LEASED)
		public void leased(String id) {
			this.calls++;
		}

	}

}
