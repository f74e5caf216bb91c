package dev.idempotency.migration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.idempotency.store.jdbc.JdbcSchemaCheck;
import dev.idempotency.store.jdbc.JdbcSchemaCheck.SchemaProblem;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Flyway migrations, run by a real Flyway from the location {@code docs/jdbc-store.md} gives,
 * with {@code {vendor}} replaced as Spring Boot replaces it; and the documented path of an
 * application whose own migrations are past V1: it sets {@code spring.flyway.out-of-order=true}.
 */
abstract class AbstractFlywayMigrationTests extends AbstractMigrationTests {

	/** The location documented for {@code spring.flyway.locations}. */
	static final String LOCATION = "classpath:dev/idempotency/migration/flyway/{vendor}";

	/** An application's own migrations, V1 and V7. */
	static final String APPLICATION = "classpath:dev/idempotency/migration/application/flyway";

	static final List<String> VERSIONS = List.of("0.1.0.1", "0.1.0.2", "0.2.0.1", "0.2.0.2");

	/** The starter's location on this database. */
	String starterLocation() {
		return LOCATION.replace("{vendor}", this.database.vendor());
	}

	FluentConfiguration flyway(String... locations) {
		return Flyway.configure().dataSource(this.database.dataSource()).locations(locations);
	}

	/**
	 * The starter's location on a database without Flyway's history yet: where the tables exist
	 * already (created by {@code initialize-schema}), Flyway needs a baseline, and version 0 keeps the
	 * starter's versions above it, so that they run (and add what the tables lack).
	 */
	@Override
	void migrate() {
		flyway(starterLocation()).baselineOnMigrate(true).baselineVersion("0").load().migrate();
	}

	@Override
	void assertHistory(Start start) {
		List<String> expected = new ArrayList<>();
		if (start != Start.EMPTY) {
			expected.add("0 BASELINE");
		}
		VERSIONS.forEach((version) -> expected.add(version + " SUCCESS"));
		assertThat(applied()).containsExactlyElementsOf(expected);
	}

	private List<String> applied() {
		MigrationInfo[] applied = flyway(starterLocation()).load().info().applied();
		return Arrays.stream(applied)
			.filter((info) -> info.getVersion() != null)
			.map((info) -> info.getVersion().getVersion() + " " + info.getState().name())
			.toList();
	}

	/**
	 * With the default baseline version (1), a schema that has tables but no history gets the
	 * starter's versions marked as below the baseline: they never run, and the schema check names
	 * what 0.1's table lacks. The documented {@code baseline-version=0} is what {@link #migrate()} uses.
	 */
	@Test
	void defaultBaselineSkipsTheStarterMigrations() throws Exception {
		this.database.create01();
		assertThat(flyway(starterLocation()).baselineOnMigrate(true).load().migrate().migrationsExecuted).isZero();
		assertThat(new JdbcSchemaCheck(this.database.dataSource(), this.database.dialect(), "idempotency_record").check())
			.extracting(SchemaProblem::problem)
			.contains("column owner_token missing");
	}

	@Test
	void applicationPastV1AddsTheLocationWithOutOfOrderOnce() throws Exception {
		addTheLocationToAnApplicationAtV7(this.database::createShipped);
	}

	@Test
	void applicationPastV1On01TablesAddsTheLocationWithOutOfOrderOnce() throws Exception {
		addTheLocationToAnApplicationAtV7(this.database::create01);
	}

	/**
	 * An application on Flyway at V7 whose idempotency tables the starter's {@code initialize-schema}
	 * created (the 0.1 or the current one) adds the starter's location.
	 */
	private void addTheLocationToAnApplicationAtV7(Runnable initializeSchema) throws Exception {
		flyway(APPLICATION).load().migrate();
		initializeSchema.run();
		insertRows();
		// Without out-of-order, Flyway refuses versions below the applied V7 and changes nothing.
		assertThatExceptionOfType(FlywayException.class)
			.isThrownBy(() -> flyway(APPLICATION, starterLocation()).load().migrate())
			.withMessageContaining("Validate failed: Migrations have failed validation")
			.withMessageContaining("Detected resolved migration not applied to database: 0.1.0.1")
			.withMessageContaining("outOfOrder");
		// spring.flyway.out-of-order=true, once.
		assertThat(flyway(APPLICATION, starterLocation()).outOfOrder(true).load().migrate().migrationsExecuted)
			.isEqualTo(4);
		assertShippedSchema();
		assertRowsKept();
		MigrationInfo[] applied = flyway(APPLICATION, starterLocation()).load().info().applied();
		assertThat(Arrays.stream(applied).map((info) -> info.getVersion().getVersion() + " " + info.getState()))
			.containsExactly("1 SUCCESS", "7 SUCCESS", "0.1.0.1 OUT_OF_ORDER", "0.1.0.2 OUT_OF_ORDER",
					"0.2.0.1 OUT_OF_ORDER", "0.2.0.2 OUT_OF_ORDER");
		// Back to the default: it validates, nothing is pending.
		assertThat(flyway(APPLICATION, starterLocation()).load().migrate().migrationsExecuted).isZero();
	}

}
