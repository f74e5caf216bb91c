package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RecordHeaderValuesTests {

	@Test
	void lastValueOfAHeaderWinsAndAHeaderWithoutValueReadsEmpty() {
		RecordHeaders headers = new RecordHeaders();
		headers.add("tenant", bytes("first"));
		headers.add("tenant", bytes("späť"));
		headers.add("flag", null);
		RecordHeaderValues values = new RecordHeaderValues(headers);
		assertThat(values.get("tenant")).isEqualTo("späť");
		assertThat(values.get("flag")).isEmpty();
		assertThat(values.get("missing")).isNull();
		assertThat(values.get(42)).isNull();
		assertThat(values.containsKey("flag")).isTrue();
		assertThat(values.containsKey("missing")).isFalse();
		assertThat(values).isEqualTo(Map.of("tenant", "späť", "flag", ""));
		assertThat(values.keySet()).containsExactly("tenant", "flag");
	}

	@Test
	void keyExpressionsReadHeadersByName() {
		RecordHeaders headers = new RecordHeaders();
		headers.add("tenant", bytes("acme"));
		StandardEvaluationContext context = new StandardEvaluationContext();
		context.setVariable("headers", new RecordHeaderValues(headers));
		SpelExpressionParser parser = new SpelExpressionParser();
		assertThat(parser.parseExpression("#headers['tenant'] + ':' + #headers['missing']").getValue(context))
			.isEqualTo("acme:null");
		assertThat(parser.parseExpression("#headers.containsKey('tenant')").getValue(context)).isEqualTo(true);
	}

	@Test
	void isReadOnly() {
		RecordHeaderValues values = new RecordHeaderValues(new RecordHeaders());
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> values.put("a", "b"));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
