package dev.idempotency.support.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import org.jspecify.annotations.Nullable;
import org.postgresql.util.PGobject;

/**
 * Bind values of instants written as text in UTC, where the driver would otherwise allocate far more
 * per statement than the value is worth, on the record path:
 * <ul>
 * <li>PostgreSQL: with pgjdbc, a {@code PGobject} of type {@code timestamptz} holding
 * {@code 2026-11-29T01:05:31.561671523Z} (the server rounds to microseconds, as pgjdbc does), else an
 * {@link OffsetDateTime}. Binding an {@code OffsetDateTime} makes each statement build its own
 * {@code TimestampUtils} (two {@code GregorianCalendar}s) and format the value through it: about 900
 * bytes per claim, where this costs about 200. pgjdbc sends the text with the {@code timestamptz}
 * OID, so the parameter keeps its type in every statement.</li>
 * <li>MariaDB: the {@code DATETIME} literal {@code 2026-11-29 01:05:31.561671} (microseconds
 * truncated, no fraction when it is zero), the text MariaDB Connector/J sends for a
 * {@link LocalDateTime}, which it formats with a {@code DateTimeFormatter} (about 500 bytes each).</li>
 * </ul>
 * Instants outside years 1 to 9999 (1000 to 9999 for MariaDB) keep the driver's own types.
 */
final class TimestampLiterals {

	private static final boolean PGJDBC = Pgjdbc.present();

	private static final int SECONDS_PER_DAY = 86_400;

	private TimestampLiterals() {
	}

	static Object postgres(Instant instant) {
		String text = PGJDBC ? utc(instant, 1, 'T', 9, true) : null;
		return (text != null) ? Pgjdbc.timestamptz(text)
				: OffsetDateTime.of(DatabasePlatform.utcDateTime(instant), ZoneOffset.UTC);
	}

	static Object mariaDb(Instant instant) {
		int fraction = (instant.getNano() != 0) ? 6 : 0;
		String text = utc(instant, 1000, ' ', fraction, false);
		return (text != null) ? text : DatabasePlatform.utcDateTime(instant);
	}

	/**
	 * The instant as {@code yyyy-MM-dd<separator>HH:mm:ss[.fraction][Z]}, the fraction truncated to
	 * {@code fractionDigits} (0 for none), or {@code null} outside years {@code minYear} to 9999.
	 */
	static @Nullable String utc(Instant instant, int minYear, char separator, int fractionDigits, boolean zulu) {
		long seconds = instant.getEpochSecond();
		LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
		int year = date.getYear();
		if (year < minYear || year > 9999) {
			return null;
		}
		int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
		byte[] text = new byte[19 + ((fractionDigits > 0) ? 1 + fractionDigits : 0) + (zulu ? 1 : 0)];
		digits(text, 0, year, 4);
		text[4] = '-';
		digits(text, 5, date.getMonthValue(), 2);
		text[7] = '-';
		digits(text, 8, date.getDayOfMonth(), 2);
		text[10] = (byte) separator;
		digits(text, 11, secondOfDay / 3600, 2);
		text[13] = ':';
		digits(text, 14, (secondOfDay / 60) % 60, 2);
		text[16] = ':';
		digits(text, 17, secondOfDay % 60, 2);
		if (fractionDigits > 0) {
			text[19] = '.';
			int fraction = instant.getNano();
			for (int i = fractionDigits; i < 9; i++) {
				fraction /= 10;
			}
			digits(text, 20, fraction, fractionDigits);
		}
		if (zulu) {
			text[text.length - 1] = 'Z';
		}
		return new String(text, StandardCharsets.ISO_8859_1);
	}

	private static void digits(byte[] text, int at, int value, int width) {
		for (int i = at + width - 1; i >= at; i--) {
			text[i] = (byte) ('0' + value % 10);
			value /= 10;
		}
	}

	/** Resolves pgjdbc's classes only when called: {@link #present()} first. */
	private static final class Pgjdbc {

		static boolean present() {
			try {
				return PGobject.class.getName() != null;
			}
			catch (LinkageError ex) {
				return false;
			}
		}

		static Object timestamptz(String text) {
			PGobject value = new PGobject();
			value.setType("timestamptz");
			try {
				value.setValue(text);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			return value;
		}

	}

}
