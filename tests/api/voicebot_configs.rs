//! Telephony and SIP configurations, and channel instances.

use serde_json::{Value, json};

use crate::helpers::*;

pub const TELEPHONY: &str = "/v4/voicebot/voicebotChannelTelephonyConfigurations";
pub const SIP: &str = "/v4/voicebot/voicebotChannelSIPConfigurations";
pub const CHANNELS: &str = "/v4/voicebot/voicebotChannelInstances";
pub const DEMO_TELEPHONY: &str = "0192f0c4-0000-7000-8000-0000000e0001";
pub const DEMO_SIP: &str = "0192f0c4-0000-7000-8000-0000000e0002";
pub const SITE_B_TELEPHONY: &str = "0192f0c4-0000-7000-8000-0000000e1001";
pub const VOICE_CHANNEL: &str = "0192f0c4-0000-7000-8000-0000000c0001";

pub fn sip_body() -> Value {
    json!({"sIPServer": "pbx.example.net", "username": "trunk", "password": "pa55-w0rd-XYZ",
           "isAuthUsernameRequired": false, "isOutboundProxyRequired": false})
}

async fn created(app: &TestApp, path: &str, body: &Value) -> Value {
    let response = app.post(path, &app.admin_a(), body).await;
    assert_eq!(response.status(), 201, "{path}");
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let value: Value = response.json().await.unwrap();
    assert_eq!(location, format!("{path}/{}", value["id"].as_str().unwrap()));
    value
}

async fn rejected(app: &TestApp, path: &str, body: &Value) -> Vec<String> {
    error_locations(&assert_problem(app.post(path, &app.admin_a(), body).await, 400, 400001).await)
}

#[tokio::test]
async fn telephony_configuration_lifecycle() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let created = created(&app, TELEPHONY, &json!({"phoneNumber": "+442079460000", "phoneNumberCountry": "GB"})).await;
    let path = format!("{TELEPHONY}/{}", created["id"].as_str().unwrap());
    assert_eq!(app.get(&path, &token).await.json::<Value>().await.unwrap(), created);
    let list: Value = app.get(TELEPHONY, &token).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 3, "the demo's two numbers and this one");

    let changed_number = json!({"phoneNumber": "+442079460001", "phoneNumberCountry": "GB"});
    let problem = assert_problem(app.put(&path, &token, &changed_number).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/phoneNumber"]);
    let wrong_country = json!({"phoneNumber": "+442079460000", "phoneNumberCountry": "FR"});
    assert_problem(app.put(&path, &token, &wrong_country).await, 400, 400001).await;
    let same = json!({"id": created["id"], "phoneNumber": "+442079460000", "phoneNumberCountry": "GB"});
    assert_eq!(app.put(&path, &token, &same).await.status(), 200);

    assert_eq!(app.delete(&path, &token).await.status(), 204);
    assert_problem(app.get(&path, &token).await, 404, 404001).await;
}

#[tokio::test]
async fn telephony_numbers_are_e164_of_their_country_and_unique_per_site() {
    let app = spawn_app().await;
    assert_eq!(rejected(&app, TELEPHONY, &json!({})).await, ["/phoneNumber", "/phoneNumberCountry"]);
    for (number, country) in [
        ("4155550100", "US"),
        ("+1415555010", "US"),
        ("+33612345678", "BE"),
        ("+17875550100", "US"),
        ("+14155550100", "PR"),
    ] {
        let body = json!({"phoneNumber": number, "phoneNumberCountry": country});
        assert_eq!(rejected(&app, TELEPHONY, &body).await, ["/phoneNumber"], "{number} {country}");
    }
    assert_eq!(
        rejected(&app, TELEPHONY, &json!({"phoneNumber": "+14155550101", "phoneNumberCountry": "DE"})).await,
        ["/phoneNumberCountry"]
    );
    created(&app, TELEPHONY, &json!({"phoneNumber": "+17875550100", "phoneNumberCountry": "PR"})).await;
    let again =
        app.post(TELEPHONY, &app.admin_a(), &json!({"phoneNumber": "+14155550100", "phoneNumberCountry": "US"})).await;
    let problem = assert_problem(again, 409, 409001).await;
    assert_eq!(
        (problem["errors"][0]["pointer"].as_str(), problem["errors"][0]["code"].as_u64()),
        (Some("/phoneNumber"), Some(400014))
    );
}

#[tokio::test]
async fn configurations_in_use_cannot_be_deleted() {
    let app = spawn_app().await;
    let token = app.admin_a();
    // The demo voicebots' channels use the demo telephony configuration.
    assert_problem(app.delete(&format!("{TELEPHONY}/{DEMO_TELEPHONY}"), &token).await, 409, 409002).await;
    let channel = created(&app, CHANNELS, &json!({"channelType": "sip", "infoId": DEMO_SIP})).await;
    assert_problem(app.delete(&format!("{SIP}/{DEMO_SIP}"), &token).await, 409, 409002).await;
    assert_eq!(app.delete(&format!("{CHANNELS}/{}", channel["id"].as_str().unwrap()), &token).await.status(), 204);
    assert_eq!(app.delete(&format!("{SIP}/{DEMO_SIP}"), &token).await.status(), 204);
}

#[tokio::test]
async fn sip_configuration_lifecycle_and_password_at_rest() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let created = created(&app, SIP, &sip_body()).await;
    assert_eq!(created["password"], "pa55-w0rd-XYZ", "the spec returns the password");
    assert_eq!(created["authUsername"], "");
    let path = format!("{SIP}/{}", created["id"].as_str().unwrap());
    let mut body = sip_body();
    body["password"] = json!("n3w-pa55-QRS");
    body["isOutboundProxyRequired"] = json!(true);
    body["outboundProxy"] = json!("10.1.2.3:5070");
    let updated: Value = app.put(&path, &token, &body).await.json().await.unwrap();
    assert_eq!(updated["password"], "n3w-pa55-QRS");
    assert_eq!(updated["outboundProxy"], "10.1.2.3:5070");
    assert_eq!(app.get(&path, &token).await.json::<Value>().await.unwrap(), updated);

    // Neither password is readable in the database.
    let stored: Vec<String> = {
        use sea_orm::{ConnectionTrait, Statement};
        app.db
            .query_all_raw(Statement::from_string(
                app.db.get_database_backend(),
                "SELECT password_encrypted FROM sip_configurations",
            ))
            .await
            .unwrap()
            .into_iter()
            .map(|row| row.try_get::<String>("", "password_encrypted").unwrap())
            .collect()
    };
    assert_eq!(stored.len(), 3, "the demo's two and this one");
    assert!(stored.iter().all(|s| s.starts_with("v1:") && !s.contains("pa55")));
    if let Some(path) = &app.sqlite_path {
        for file in [path.clone(), path.with_extension("db-wal")] {
            let bytes = std::fs::read(&file).unwrap_or_default();
            for secret in ["pa55-w0rd-XYZ", "n3w-pa55-QRS", "demo-sip-password"] {
                assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret} in {}", file.display());
            }
        }
    }
}

#[tokio::test]
async fn sip_rules() {
    let app = spawn_app().await;
    assert_eq!(rejected(&app, SIP, &json!({})).await, ["/password", "/username"]);
    for server in ["http://pbx", "pbx:0", "pbx:70000", "bad_host", "-pbx.example"] {
        let mut body = sip_body();
        body["sIPServer"] = json!(server);
        assert_eq!(rejected(&app, SIP, &body).await, ["/sIPServer"], "{server}");
    }
    let mut body = sip_body();
    body["isAuthUsernameRequired"] = json!(true);
    body["isOutboundProxyRequired"] = json!(true);
    assert_eq!(rejected(&app, SIP, &body).await, ["/authUsername", "/outboundProxy"]);
    body["authUsername"] = json!("auth");
    body["outboundProxy"] = json!("proxy.example.net");
    created(&app, SIP, &body).await;
    let mut no_server = sip_body();
    no_server.as_object_mut().unwrap().remove("sIPServer");
    let stored = created(&app, SIP, &no_server).await;
    assert_eq!(stored["sIPServer"], "", "the SIP server is optional");
}

#[tokio::test]
async fn channel_instances_embed_their_configuration_on_request() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let bare = created(&app, CHANNELS, &json!({})).await;
    assert!(bare.get("voiceChannel").is_none() && bare.get("infoId").is_none());
    let sip =
        created(&app, CHANNELS, &json!({"voiceChannelId": VOICE_CHANNEL, "channelType": "sip", "infoId": DEMO_SIP}))
            .await;
    assert_eq!(sip["voiceChannel"]["id"], VOICE_CHANNEL);
    assert!(sip.get("info").is_none(), "info only with include=info");
    let path = format!("{CHANNELS}/{}", sip["id"].as_str().unwrap());
    let with_info: Value = app.get(&format!("{path}?include=info"), &token).await.json().await.unwrap();
    assert_eq!(with_info["info"]["username"], "bot-trunk");
    assert_eq!(with_info["info"]["password"], "demo-sip-password");
    assert_eq!(with_info["info"]["channelType"], "sip", "the discriminator of `info`");
    let list: Value = app.get(&format!("{CHANNELS}?include=info"), &token).await.json().await.unwrap();
    let infos: Vec<&Value> = list.as_array().unwrap().iter().filter_map(|c| c.get("info")).collect();
    assert_eq!(infos.len(), 4, "the demo bots' telephony channels, the demo's spare SIP one and this one");
    assert!(infos.iter().any(|i| i["phoneNumber"] == "+14155550100"));
    let problem = assert_problem(app.get(&format!("{CHANNELS}?include=voiceChannel"), &token).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["include"]);
}

#[tokio::test]
async fn channel_instance_references_must_exist_in_the_site() {
    let app = spawn_app().await;
    let unknown = "00000000-0000-0000-0000-0000000000ff";
    assert_eq!(rejected(&app, CHANNELS, &json!({"infoId": DEMO_SIP})).await, ["/channelType"]);
    assert_eq!(rejected(&app, CHANNELS, &json!({"infoId": DEMO_SIP, "channelType": "telephony"})).await, ["/infoId"]);
    assert_eq!(
        rejected(&app, CHANNELS, &json!({"infoId": SITE_B_TELEPHONY, "channelType": "telephony"})).await,
        ["/infoId"]
    );
    assert_eq!(rejected(&app, CHANNELS, &json!({"voiceChannelId": unknown})).await, ["/voiceChannelId"]);
    assert_eq!(rejected(&app, CHANNELS, &json!({"channelType": "pstn"})).await, ["/channelType"]);
}

#[tokio::test]
async fn another_sites_configurations_and_channels_are_404() {
    let app = spawn_app().await;
    let other = app.admin_b();
    let channel = created(&app, CHANNELS, &json!({})).await;
    for path in [
        format!("{TELEPHONY}/{DEMO_TELEPHONY}"),
        format!("{SIP}/{DEMO_SIP}"),
        format!("{CHANNELS}/{}", channel["id"].as_str().unwrap()),
    ] {
        assert_problem(app.get(&path, &other).await, 404, 404001).await;
        let body = if path.starts_with(TELEPHONY) {
            json!({"phoneNumber": "+14155550100", "phoneNumberCountry": "US"})
        } else if path.starts_with(SIP) {
            sip_body()
        } else {
            json!({})
        };
        assert_problem(app.put(&path, &other, &body).await, 404, 404001).await;
        assert_problem(app.delete(&path, &other).await, 404, 404001).await;
    }
    for list in [TELEPHONY, SIP, CHANNELS] {
        let items: Value = app.get(list, &other).await.json().await.unwrap();
        let ids: Vec<&str> = items.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
        assert!(!ids.contains(&DEMO_TELEPHONY) && !ids.contains(&DEMO_SIP), "{list}: {ids:?}");
    }
    assert_eq!(app.get(&format!("{TELEPHONY}/{DEMO_TELEPHONY}"), &app.admin_a()).await.status(), 200);
}
