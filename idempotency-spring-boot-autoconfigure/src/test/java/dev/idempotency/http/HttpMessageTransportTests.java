package dev.idempotency.http;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.support.IdempotentMethod;
import dev.idempotency.support.MessageTransports;
import org.junit.jupiter.api.Test;

import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link HttpMessageTransport}: what the engine reads of a handler method through it.
 */
class HttpMessageTransportTests {

	private static final MessageTransports TRANSPORTS = MessageTransports.of(List.of(new HttpMessageTransport()));

	private static final DeliveryContext REQUEST = new DeliveryContext(":k-1", HttpMessageTransport.NAME, Map.of(),
			null, List.of());

	@Test
	void aHandlerFingerprintsTheRequestAndReturnsTheStoredResponseByDefault() {
		IdempotentMethod method = of("create");
		assertThat(method.fingerprintExpression()).isEqualTo("#idempotentRequest?.fingerprintPayload()");
		assertThat(method.onDuplicate()).isEqualTo(OnDuplicate.RETURN_PREVIOUS);
		assertThat(method.namespaceFor(REQUEST)).isEqualTo("http:Handlers#create");
	}

	@Test
	void theAnnotationsOwnFingerprintAndDuplicatePolicyWin() {
		IdempotentMethod method = of("own");
		assertThat(method.fingerprintExpression()).isEqualTo("#p0");
		assertThat(method.onDuplicate()).isEqualTo(OnDuplicate.THROW);
	}

	@Test
	void theMappingsNameIsTheListenerId() {
		assertThat(of("named").namespaceFor(REQUEST)).isEqualTo("http:create-payment");
	}

	@Test
	void aMethodThatIsNoHandlerKeepsTheEnginesDefaults() {
		IdempotentMethod method = IdempotentMethod.of(ReflectionUtils.findMethod(Service.class, "plain", String.class),
				Service.class, TRANSPORTS, (value) -> value, "#p0");
		assertThat(method.fingerprintExpression()).isEqualTo("#p0");
		assertThat(method.onDuplicate()).isEqualTo(OnDuplicate.ACKNOWLEDGE);
	}

	private static IdempotentMethod of(String name) {
		Method method = ReflectionUtils.findMethod(Handlers.class, name, String.class);
		return IdempotentMethod.of(method, Handlers.class, TRANSPORTS, (value) -> value, "#root.args");
	}

	static class Handlers {

		@PostMapping("/payments")
		@Idempotent
		String create(String body) {
			return body;
		}

		@RequestMapping(path = "/own", method = org.springframework.web.bind.annotation.RequestMethod.POST)
		@Idempotent(fingerprint = "#p0", onDuplicate = OnDuplicate.THROW)
		String own(String body) {
			return body;
		}

		@PostMapping(path = "/named", name = "create-payment")
		@Idempotent
		String named(String body) {
			return body;
		}

	}

	static class Service {

		@Idempotent
		String plain(String body) {
			return body;
		}

	}

}
