package dev.idempotency.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link IdempotencyKey}.
 */
class IdempotencyKeyTests {

	private static final String DIGEST = "sha256:[0-9a-f]{64}";

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", " ", "\t\n" })
	void blankNamespaceIsRejected(String namespace) {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> new IdempotencyKey(namespace, "order-1"))
			.withMessageContaining("namespace");
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", " ", "\t\n" })
	void blankValueIsRejected(String value) {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> new IdempotencyKey("points", value))
			.withMessageContaining("points");
	}

	@Test
	void keysAreEqualByNamespaceAndValue() {
		assertThat(new IdempotencyKey("points", "order-1")).isEqualTo(new IdempotencyKey("points", "order-1"))
			.hasSameHashCodeAs(new IdempotencyKey("points", "order-1"))
			.isNotEqualTo(new IdempotencyKey("shipping", "order-1"))
			.hasToString("points:order-1");
	}

	@Test
	void qualifiedNameEncodesTheNamespaceSoThatTwoKeysNeverShareIt() {
		assertThat(new IdempotencyKey("points", "o-1").qualifiedName()).isEqualTo("points:o-1");
		assertThat(new IdempotencyKey("points:orders", "o:1").qualifiedName()).isEqualTo("points%3Aorders:o:1");
		assertThat(new IdempotencyKey("100%", "o").qualifiedName()).isEqualTo("100%25:o");
		assertThat(new IdempotencyKey("a:b", "c").qualifiedName())
			.isNotEqualTo(new IdempotencyKey("a", "b:c").qualifiedName())
			.isNotEqualTo(new IdempotencyKey("a%3Ab", "c").qualifiedName());
	}

	@Test
	void digestedBeyondLeavesShortKeysAlone() {
		IdempotencyKey key = new IdempotencyKey("points", "order-1");
		assertThat(key.digestedBeyond(255)).isSameAs(key);
	}

	@Test
	void digestedBeyondKeepsAPartOfExactlyMaxLengthVerbatim() {
		IdempotencyKey key = new IdempotencyKey("points", "x".repeat(100));
		assertThat(key.digestedBeyond(100)).isSameAs(key);
	}

	@Test
	void digestedBeyondDigestsALongValueAsSha256Hex() throws Exception {
		String value = "x".repeat(101);
		IdempotencyKey digested = new IdempotencyKey("points", value).digestedBeyond(100);
		assertThat(digested.namespace()).isEqualTo("points");
		assertThat(digested.value()).matches(DIGEST)
			.hasSize(71)
			.isEqualTo("sha256:" + HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8))));
	}

	@Test
	void digestedBeyondDigestsALongNamespaceAndKeepsAShortValue() {
		IdempotencyKey digested = new IdempotencyKey("n".repeat(200), "order-1").digestedBeyond(100);
		assertThat(digested.namespace()).matches(DIGEST);
		assertThat(digested.value()).isEqualTo("order-1");
	}

	@Test
	void differentLongKeysGiveDifferentDigests() {
		String prefix = "y".repeat(300);
		assertThat(new IdempotencyKey("points", prefix + "a").digestedBeyond(100))
			.isNotEqualTo(new IdempotencyKey("points", prefix + "b").digestedBeyond(100));
	}

	@Test
	void sameLongKeyGivesTheSameDigest() {
		String value = "z".repeat(300);
		assertThat(new IdempotencyKey("points", value).digestedBeyond(100))
			.isEqualTo(new IdempotencyKey("points", value).digestedBeyond(100));
	}

	@Test
	void digestHandlesNonAsciiKeysByTheirUtf8Bytes() {
		String value = "é".repeat(150);
		assertThat(new IdempotencyKey("points", value).digestedBeyond(100).value()).matches(DIGEST)
			.isNotEqualTo(new IdempotencyKey("points", "e".repeat(150)).digestedBeyond(100).value());
	}

	@Test
	void digestedKeyFitsTheSmallestAllowedMaxLength() {
		IdempotencyKey digested = new IdempotencyKey("n".repeat(500), "v".repeat(500)).digestedBeyond(71);
		assertThat(digested.namespace()).hasSize(71);
		assertThat(digested.value()).hasSize(71);
	}

	/**
	 * A part that starts like a digest is digested too, however short: otherwise the literal key
	 * {@code sha256:<hex of L>} would be stored as the long key {@code L} is, and skipped as its
	 * duplicate.
	 */
	@Test
	void digestedBeyondDigestsAPartStartingWithTheDigestPrefix() throws Exception {
		String longValue = "x".repeat(300);
		String spelled = new IdempotencyKey("points", longValue).digestedBeyond(100).value();
		IdempotencyKey literal = new IdempotencyKey("points", spelled);
		assertThat(literal.digestedBeyond(100).value()).matches(DIGEST)
			.isNotEqualTo(spelled)
			.isEqualTo("sha256:" + HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(spelled.getBytes(StandardCharsets.UTF_8))));
		assertThat(new IdempotencyKey("sha256:", "order-1").digestedBeyond(100).namespace()).matches(DIGEST);
		assertThat(new IdempotencyKey("points", "sha256:abc").digestedBeyond(100).value()).matches(DIGEST);
	}

	@Test
	void digestedBeyondKeepsPartsThatOnlyContainOrResembleThePrefixVerbatim() {
		for (String value : new String[] { "order-sha256:1", "SHA256:abc", "sha256", "sha-256:abc", " sha256:abc" }) {
			IdempotencyKey key = new IdempotencyKey("points", value);
			assertThat(key.digestedBeyond(100)).as(value).isSameAs(key);
		}
	}

	@Test
	void isDigestRecognizesOnlyTheDigestsThatDigestedBeyondWrites() {
		String digest = new IdempotencyKey("points", "x".repeat(300)).digestedBeyond(100).value();
		assertThat(IdempotencyKey.isDigest(digest)).isTrue();
		assertThat(IdempotencyKey.isDigest(digest.toUpperCase().replace("SHA256:", "sha256:"))).isFalse();
		assertThat(IdempotencyKey.isDigest(digest.substring(0, 70))).isFalse();
		assertThat(IdempotencyKey.isDigest(digest + "0")).isFalse();
		assertThat(IdempotencyKey.isDigest("sha256:" + "g".repeat(64))).isFalse();
		assertThat(IdempotencyKey.isDigest("order-1")).isFalse();
	}

	@Test
	void maxLengthTooShortToHoldADigestIsRejected() {
		IdempotencyKey key = new IdempotencyKey("points", "order-1");
		assertThatIllegalArgumentException().isThrownBy(() -> key.digestedBeyond(70)).withMessageContaining("71");
		assertThatNoException().isThrownBy(() -> key.digestedBeyond(71));
	}

}
