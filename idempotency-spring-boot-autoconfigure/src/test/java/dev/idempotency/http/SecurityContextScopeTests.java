package dev.idempotency.http;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SecurityContextScope} and {@link HttpIdempotencyScope#scopedKey}.
 */
class SecurityContextScopeTests {

	private final SecurityContextScope scope = new SecurityContextScope();

	@AfterEach
	void clearContext() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void anAuthenticatedPrincipalIsTheScope() {
		SecurityContextHolder.getContext()
			.setAuthentication(UsernamePasswordAuthenticationToken.authenticated("alice", "pw", List.of()));
		assertThat(this.scope.scopeOf(new MockHttpServletRequest())).isEqualTo("alice");
	}

	@Test
	void anAnonymousOrMissingAuthenticationHasNoScope() {
		assertThat(this.scope.scopeOf(new MockHttpServletRequest())).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
					AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
		assertThat(this.scope.scopeOf(new MockHttpServletRequest())).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(UsernamePasswordAuthenticationToken.unauthenticated("mallory", "pw"));
		assertThat(this.scope.scopeOf(new MockHttpServletRequest())).isNull();
	}

	@Test
	void theScopeIsEncodedSoThatNoScopeAndKeyPairShareAStoredKey() {
		assertThat(HttpIdempotencyScope.scopedKey("alice", "k-1")).isEqualTo("alice:k-1");
		assertThat(HttpIdempotencyScope.scopedKey(null, "k-1")).isEqualTo(":k-1");
		assertThat(HttpIdempotencyScope.scopedKey("a:b", "c")).isEqualTo("a%3Ab:c")
			.isNotEqualTo(HttpIdempotencyScope.scopedKey("a", "b:c"));
	}

}
