package dev.idempotency.migration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.FileSystemUtils;

/**
 * The MySQL Flyway migrations, run on MariaDB (no MySQL server here) with MySQL 8's key collation
 * {@code utf8mb4_0900_bin} replaced by MariaDB's {@code utf8mb4_nopad_bin}: they give the table that
 * MariaDB's shipped script creates, from an empty database, from 0.1's MySQL tables and from the
 * tables {@code schema-mysql.sql} creates. This runs the MySQL scripts' statements, including the
 * conditional {@code ADD COLUMN} of the 0.2 upgrade, through Flyway's MariaDB parser; what only a
 * MySQL server would show (its collation, its parser) is not tested.
 */
class FlywayMySqlScriptsOnMariaDbIntegrationTests extends AbstractFlywayMigrationTests {

	private Path location;

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.mySqlScriptsOnMariaDb();
	}

	@Override
	String starterLocation() {
		try {
			if (this.location == null) {
				this.location = Files.createTempDirectory("mysql-migrations");
				for (Resource script : new PathMatchingResourcePatternResolver()
					.getResources("classpath:dev/idempotency/migration/flyway/mysql/*.sql")) {
					Files.writeString(this.location.resolve(script.getFilename()),
							IsolatedDatabase.onMariaDb(script.getContentAsString(StandardCharsets.UTF_8)));
				}
			}
			return "filesystem:" + this.location;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@AfterEach
	void deleteLocation() throws IOException {
		if (this.location != null) {
			FileSystemUtils.deleteRecursively(this.location);
		}
	}

}
