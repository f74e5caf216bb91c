package dev.idempotency.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyKeyHeader}.
 */
class IdempotencyKeyHeaderTests {

	@Test
	void aBareKeyIsAccepted() {
		assertThat(read("8e03978e-4").key()).isEqualTo("8e03978e-4");
	}

	@Test
	void aQuotedKeyIsUnquotedWithItsEscapes() {
		assertThat(read("\"8e03978e\"").key()).isEqualTo("8e03978e");
		assertThat(read("\"a\\\"b\\\\c\"").key()).isEqualTo("a\"b\\c");
	}

	@Test
	void surroundingSpaceIsIgnored() {
		assertThat(read("  k-1 ").key()).isEqualTo("k-1");
	}

	@Test
	void aMissingHeaderIsRefused() {
		IdempotencyKeyHeader header = read(null);
		assertThat(header.accepted()).isFalse();
		assertThat(header.problem()).contains("has no Idempotency-Key header");
		assertThat(header.missing()).isTrue();
		assertThat(read("").missing()).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "  ", "\"\"" })
	void anEmptyKeyIsRefused(String value) {
		assertThat(read(value).problem()).contains("is empty").contains("1 to 10 characters");
	}

	@Test
	void aKeyOverTheLimitIsRefusedNamingIt() {
		assertThat(read("k".repeat(10)).accepted()).isTrue();
		assertThat(read("k".repeat(11)).problem()).contains("11 characters long, more than the 10 allowed");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"abc", "\"a\"b\"", "\"a\\x\"", "\"a\\\"", "\"" })
	void aMalformedQuotedStringIsRefused(String value) {
		assertThat(read(value).problem()).contains("malformed quoted string");
	}

	@ParameterizedTest
	@ValueSource(strings = { "a\tb", "ключ", "a\u007fb" })
	void aCharacterOutsidePrintableAsciiIsRefused(String value) {
		assertThat(read(value).problem()).contains("outside printable ASCII");
	}

	private static IdempotencyKeyHeader read(String value) {
		return IdempotencyKeyHeader.read("Idempotency-Key", value, 10);
	}

}
