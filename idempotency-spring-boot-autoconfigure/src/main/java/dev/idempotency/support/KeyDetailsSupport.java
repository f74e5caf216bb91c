package dev.idempotency.support;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * What an invocation of a method that records key details uses: the evaluator of its fingerprint
 * expression (the key resolver when it is the SpEL one, so both share its caches) and the codec,
 * which is there only when Jackson is.
 *
 * @param expressions evaluates fingerprint expressions
 * @param codec the codec, or a supplier of {@code null} without Jackson
 */
record KeyDetailsSupport(SpelKeyResolver expressions, Supplier<@Nullable KeyDetailsCodec> codec) {

	/**
	 * The codec, which a method that records key details needs.
	 * @param method the method, for the message
	 * @return the codec
	 * @throws IllegalStateException if there is none (no Jackson on the class path)
	 */
	KeyDetailsCodec requireCodec(IdempotentMethod method) {
		KeyDetailsCodec codec = this.codec.get();
		if (codec == null) {
			throw new IllegalStateException(noCodecMessage(method.fallbackNamespace()));
		}
		return codec;
	}

	static String noCodecMessage(String methods) {
		return "@Idempotent methods " + methods + " use a fingerprint or onDuplicate = RETURN_PREVIOUS, which need "
				+ "Jackson 3 (tools.jackson.core:jackson-databind) on the class path to serialize payloads and "
				+ "results; add it, or remove the fingerprint and RETURN_PREVIOUS";
	}

}
