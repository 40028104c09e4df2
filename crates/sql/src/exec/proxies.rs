//! GRANT PROXY and REVOKE PROXY (see [`crate::catalog::proxies`] for what a PROXY grant
//! is and who may give one).

use crate::catalog::proxies::ProxyGrant;
use crate::error::SqlError;
use crate::plan::grants::GrantStmt;
use crate::plan::UserSpec;
use crate::result::QueryResult;
use crate::Session;
use myriad_types::errors::ER_ACCESS_DENIED_NO_PASSWORD_ERROR;

impl Session {
    /// `GRANT PROXY ON proxied TO ...` or `REVOKE PROXY ON proxied FROM ...`: 1698 when
    /// this account may not, 1133 for a GRANT to an account that does not exist, 1141 for
    /// a REVOKE of a grant an account does not hold.
    pub(crate) fn grant_proxy(
        &mut self,
        g: &GrantStmt,
        proxied: &UserSpec,
    ) -> Result<QueryResult, SqlError> {
        let (user, host) = (proxied.user.as_str(), proxied.host.as_str());
        let (own_user, own_host) = self.own_account();
        let accounts = &self.engine.accounts;
        if !accounts.may_grant_proxy((&own_user, &own_host), user, host) {
            return Err(SqlError::of(
                ER_ACCESS_DENIED_NO_PASSWORD_ERROR,
                &[&self.info.user, &self.info.host],
            ));
        }
        for to in &g.users {
            let account = (to.user.as_str(), to.host.as_str());
            if g.revoke {
                if accounts.revoke_proxy(account, user, host)? != Some(true) {
                    return Err(super::accounts::no_such_grant(account.0, account.1));
                }
                continue;
            }
            let grant = ProxyGrant {
                user: user.into(),
                host: host.into(),
                with_grant: g.grant_option,
                grantor: format!("{}@{}", self.info.user, self.info.host),
                timestamp: 0,
            };
            if !accounts.grant_proxy(account, grant)? {
                return Err(super::accounts::no_matching_account());
            }
        }
        Ok(crate::exec::ok(0))
    }
}
