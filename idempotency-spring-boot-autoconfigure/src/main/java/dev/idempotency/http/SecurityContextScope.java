package dev.idempotency.http;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The scope of Spring Security's authenticated principal: its name, read from the
 * {@code SecurityContextHolder} (so it does not depend on the servlet API integration); an anonymous
 * or unauthenticated request has none.
 *
 * @since 0.2.0
 */
public final class SecurityContextScope implements HttpIdempotencyScope {

	@Override
	public @Nullable String scopeOf(HttpServletRequest request) {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return null;
		}
		return authentication.getName();
	}

}
