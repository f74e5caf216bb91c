package dev.idempotency.support.jdbc;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PGobject;

import static org.assertj.core.api.Assertions.assertThat;

class DatabasePlatformTimestampTests {

	@ParameterizedTest
	@ValueSource(strings = { "2026-11-26T04:11:22.561671123Z", "1969-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
			"2038-01-19T03:14:08Z", "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "2000-02-29T23:59:59.000000001Z" })
	void bindsTheInstantAsUtcOnEveryPlatform(String text) {
		Instant instant = Instant.parse(text);
		assertThat(DatabasePlatform.POSTGRESQL.timestamp(instant)).isInstanceOfSatisfying(PGobject.class, (value) -> {
			assertThat(value.getType()).isEqualTo("timestamptz");
			assertThat(Instant.parse(value.getValue())).isEqualTo(instant);
		});
		assertThat(DatabasePlatform.MYSQL.timestamp(instant)).isEqualTo(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
		assertThat(DatabasePlatform.GENERIC.timestamp(instant)).isEqualTo(Timestamp.from(instant));
	}

	@ParameterizedTest
	@ValueSource(strings = { "2026-11-26T04:11:22.561671123Z", "1969-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
			"2038-01-19T03:14:08.000000999Z", "9999-12-31T23:59:59.999Z", "1000-01-01T00:00:00.5Z" })
	void bindsMariaDbTimestampsAsTheLiteralItsDriverSendsForALocalDateTime(String text) {
		Instant instant = Instant.parse(text);
		LocalDateTime utc = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
		// MariaDB Connector/J's LocalDateTime codec: microseconds truncated, no fraction when zero
		String driverText = utc.format(DateTimeFormatter
			.ofPattern((utc.getNano() != 0) ? "yyyy-MM-dd HH:mm:ss.SSSSSS" : "yyyy-MM-dd HH:mm:ss"));
		assertThat(DatabasePlatform.MARIADB.timestamp(instant)).isEqualTo(driverText);
	}

	@Test
	void leavesMariaDbInstantsBeforeTheYear1000ToTheDriver() {
		Instant instant = Instant.parse("0999-12-31T23:59:59Z");
		assertThat(DatabasePlatform.MARIADB.timestamp(instant)).isEqualTo(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
	}

	@ParameterizedTest
	@ValueSource(strings = { "+10000-01-01T00:00:00Z", "-0001-12-31T23:59:59Z" })
	void leavesInstantsOutsideFourDigitYearsToPgjdbc(String text) {
		Instant instant = Instant.parse(text);
		assertThat(DatabasePlatform.POSTGRESQL.timestamp(instant))
			.isEqualTo(OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
	}

}
