package dev.idempotency.support;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ReflectionUtils;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link PayloadFingerprints} and {@link StoredResults}.
 */
class PayloadFingerprintsTests {

	private static final Method METHOD = ReflectionUtils.findMethod(PayloadFingerprintsTests.class, "method");

	/** SHA-256 of "abc" (FIPS 180-2, appendix B.1). */
	private static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

	private final PayloadFingerprints fingerprints = new PayloadFingerprints();

	@Test
	void stringIsHashedAsItsUtf8BytesAndBytesAsTheyAre() {
		assertThat(fingerprint("abc")).isEqualTo(SHA256_ABC);
		assertThat(fingerprint("abc".getBytes(StandardCharsets.UTF_8))).isEqualTo(SHA256_ABC);
		assertThat(fingerprint("é")).isEqualTo(PayloadFingerprints.sha256("é".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void fingerprintIsLowerCaseHexOf64Characters() {
		assertThat(fingerprint(new Ab(1, "x"))).hasSize(64).matches("[0-9a-f]{64}");
	}

	@Test
	void propertiesAreSortedByNameWhateverTheirDeclarationOrder() {
		assertThat(fingerprint(new Ab(1, "x"))).isEqualTo(fingerprint(new Ba("x", 1)))
			.isEqualTo(PayloadFingerprints.sha256("{\"a\":1,\"b\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void mapEntriesAreOrderedByKeyAndNestedValuesCount() {
		assertThat(fingerprint(Map.of("z", 1, "a", List.of(new Ab(2, "y")))))
			.isEqualTo(fingerprint(new TreeMap<>(Map.of("a", List.of(new Ba("y", 2)), "z", 1))));
		assertThat(fingerprint(new Ab(1, "x"))).isNotEqualTo(fingerprint(new Ab(1, "y")));
	}

	@Test
	void nullIsRefusedAsANonRetryableInvalidFingerprint() {
		assertThatExceptionOfType(InvalidFingerprintException.class)
			.isThrownBy(() -> this.fingerprints.fingerprint(null, "#msg", METHOD))
			.withMessageContaining("'#msg'")
			.withMessageContaining("PayloadFingerprintsTests#method");
	}

	@Test
	void storedResultLimitCountsUtf8Bytes() {
		StoredResults results = new StoredResults(JsonMapper.shared(), DataSize.ofBytes(10));
		assertThat(results.serialize("abcdefgh", METHOD)).isEqualTo("\"abcdefgh\"");
		// Four characters, eight bytes, ten with the quotes: at the limit.
		assertThat(results.serialize("éééé", METHOD)).isEqualTo("\"éééé\"");
		assertThatExceptionOfType(StoredResultTooLargeException.class)
			.isThrownBy(() -> results.serialize("ééééé", METHOD))
			.withMessageContaining("12 bytes");
	}

	private String fingerprint(Object payload) {
		return this.fingerprints.fingerprint(payload, "#payload", METHOD);
	}

	void method() {
	}

	record Ab(int a, String b) {
	}

	record Ba(String b, int a) {
	}

}
