//! Voicebots: their own channel, catalogs, include, lastUpdatedTime, tenancy.

use serde_json::{Value, json};
use switchboard_kernel::auth::Permission;

use crate::helpers::*;
use crate::voicebot_configs::{
    CHANNELS, DEMO_SIP, DEMO_TELEPHONY, SIP, SITE_B_TELEPHONY, TELEPHONY, VOICE_CHANNEL, sip_body,
};

const BOTS: &str = "/v4/voicebot/voicebots";
const DEMO_BOT: &str = "0192f0c4-0000-7000-8000-0000000b0b01";
const ENGINE: &str = "0192f0c4-0000-7000-8000-0000000a1001";

fn bot_body(name: &str) -> Value {
    json!({
        "name": name,
        "engineId": ENGINE,
        "languageId": "zh-CN",
        "voiceNameId": "zh-CN-male-1",
        "channel": {"voiceChannelId": VOICE_CHANNEL, "infoId": DEMO_SIP, "channelType": "sip"}
    })
}

fn time(bot: &Value) -> chrono::DateTime<chrono::Utc> {
    bot["lastUpdatedTime"].as_str().unwrap().parse().unwrap()
}

async fn create(app: &TestApp, body: &Value) -> Value {
    let response = app.post(BOTS, &app.admin_a(), body).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let bot: Value = response.json().await.unwrap();
    assert_eq!(location, format!("{BOTS}/{}", bot["id"].as_str().unwrap()));
    bot
}

async fn rejected(app: &TestApp, body: &Value) -> Vec<String> {
    error_locations(&assert_problem(app.post(BOTS, &app.admin_a(), body).await, 400, 400001).await)
}

#[tokio::test]
async fn create_applies_defaults_sets_statuses_and_embeds_everything() {
    let app = spawn_app().await;
    let channels_before = app.count_rows("voicebot_channel_instances").await;
    let bot = create(&app, &bot_body("Support line")).await;
    assert_eq!(bot["trainingStatus"], "succeeded");
    assert_eq!(bot["importingStatus"], "none");
    assert_eq!(bot["timeIntervalToRepeatLastMessageWhenNoInput"], 20);
    assert_eq!(bot["timeToHangUpCallWhenNoInput"], 90);
    assert_eq!(bot["botWaitingTime"], 90);
    assert_eq!(bot["intentHighConfidenceScore"], 50);
    assert_eq!(bot["wordsThatTriggerBotToWait"], json!([]));
    assert_eq!(bot["engine"]["id"], ENGINE);
    assert_eq!(bot["language"]["id"], "zh-CN");
    assert_eq!(bot["language"]["canBeUsedInVoicebot"], true);
    assert_eq!(bot["voiceName"]["genderType"], "male");
    assert_eq!(bot["channel"]["id"], bot["channelId"]);
    assert_eq!(bot["channel"]["infoId"], DEMO_SIP);
    assert_eq!(bot["channel"]["voiceChannel"]["id"], VOICE_CHANNEL);
    assert!(bot["lastUpdatedTime"].as_str().unwrap().ends_with('Z'));
    assert_eq!(app.count_rows("voicebot_channel_instances").await, channels_before + 1);
}

#[tokio::test]
async fn read_only_statuses_in_a_body_are_ignored() {
    let app = spawn_app().await;
    let mut body = bot_body("statuses");
    body["trainingStatus"] = json!("failed");
    body["importingStatus"] = json!("processing");
    let bot = create(&app, &body).await;
    assert_eq!(bot["trainingStatus"], "succeeded");
    assert_eq!(bot["importingStatus"], "none");
}

/// Strict mode (test mode): an update refuses read-only values that differ
/// from the stored ones, naming where each changes; sent back as read, it passes
/// (decisions/errors-that-teach.md).
#[tokio::test]
async fn strict_mode_refuses_changed_read_only_values_on_update() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let path = format!("{BOTS}/{DEMO_BOT}");
    let read: Value =
        app.get(&format!("{path}?include=voicebotChannelInstance"), &app.admin_a()).await.json().await.unwrap();
    let mut body = read.clone();
    body["trainingStatus"] = json!("failed");
    body["lastUpdatedTime"] = json!("2020-01-01T00:00:00Z");
    body["importingStatus"] = json!(7);
    let problem = assert_problem(app.put(&path, &app.admin_a(), &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/importingStatus"], "a wrong type first: {problem}");
    body["importingStatus"] = read["importingStatus"].clone();
    let problem = assert_problem(app.put(&path, &app.admin_a(), &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/trainingStatus"], "lastUpdatedTime moves with every update: not compared");
    assert!(problem["errors"].to_string().contains("training"), "{problem}");
    assert_eq!(app.put(&path, &app.admin_a(), &read).await.status(), 200, "sent back as read");
    assert_eq!(app.put(&path, &app.admin_a(), &read).await.status(), 200, "and the same read sent again");
}

#[tokio::test]
async fn include_decides_whether_the_channel_is_embedded() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let list: Value = app.get(BOTS, &token).await.json().await.unwrap();
    let demo = &list[0];
    assert!(demo.get("channel").is_none());
    assert!(demo["channelId"].is_string());
    let list: Value = app.get(&format!("{BOTS}?include=voicebotChannelInstance"), &token).await.json().await.unwrap();
    assert_eq!(list[0]["channel"]["id"], list[0]["channelId"]);
    assert_eq!(list[0]["channel"]["infoId"], DEMO_TELEPHONY);
    let one: Value =
        app.get(&format!("{BOTS}/{DEMO_BOT}?include=voicebotChannelInstance"), &token).await.json().await.unwrap();
    assert_eq!(one["channel"]["channelType"], "telephony");
    let one: Value = app.get(&format!("{BOTS}/{DEMO_BOT}"), &token).await.json().await.unwrap();
    assert!(one.get("channel").is_none());
    // `include` is an enum of one value: another, a list repeating it, or nothing at all is a 400.
    for include in ["info", "voicebotChannelInstance,voicebotChannelInstance", ""] {
        let problem = assert_problem(app.get(&format!("{BOTS}?include={include}"), &token).await, 400, 400003).await;
        assert_eq!(error_locations(&problem), ["include"], "{include:?}");
    }
}

#[tokio::test]
async fn update_replaces_the_bot_and_its_channel_and_moves_last_updated_time() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let bot = create(&app, &bot_body("Before")).await;
    let path = format!("{BOTS}/{}", bot["id"].as_str().unwrap());
    let body = json!({
        "id": bot["id"],
        "name": "After",
        "languageId": "en",
        "voiceNameId": "en-US-male-1",
        "timeToHangUpCallWhenNoInput": 600,
        "wordsThatTriggerBotToWait": ["wait"],
        "channel": {"voiceChannelId": VOICE_CHANNEL, "infoId": DEMO_TELEPHONY, "channelType": "telephony"}
    });
    let response = app.put(&path, &token, &body).await;
    assert_eq!(response.status(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["name"], "After");
    assert!(updated.get("engineId").is_none(), "PUT replaces: the engine left out is cleared");
    assert_eq!(updated["timeToHangUpCallWhenNoInput"], 600);
    assert_eq!(updated["channelId"], bot["channelId"], "the bot keeps its channel instance");
    assert_eq!(updated["channel"]["infoId"], DEMO_TELEPHONY);
    assert!(time(&updated) > time(&bot));
    assert_eq!(updated["trainingStatus"], "succeeded");

    // Editing the channel through its own endpoint moves the bot's time too.
    let before = time(&updated);
    let channel_path = format!("{CHANNELS}/{}", bot["channelId"].as_str().unwrap());
    let response = app
        .put(&channel_path, &token, &json!({"voiceChannelId": VOICE_CHANNEL, "channelType": "sip", "infoId": DEMO_SIP}))
        .await;
    assert_eq!(response.status(), 200);
    let reread: Value = app.get(&path, &token).await.json().await.unwrap();
    assert!(time(&reread) > before);

    // And so does editing the configuration the channel uses.
    let before = time(&reread);
    let sip = crate::voicebot_configs::sip_body();
    assert_eq!(
        app.put(&format!("/v4/voicebot/voicebotChannelSIPConfigurations/{DEMO_SIP}"), &token, &sip).await.status(),
        200
    );
    let reread: Value = app.get(&path, &token).await.json().await.unwrap();
    assert!(time(&reread) > before);

    let mismatch = json!({"id": DEMO_BOT, "name": "x", "channel": body["channel"]});
    let problem = assert_problem(app.put(&path, &token, &mismatch).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/id"]);
}

#[tokio::test]
async fn every_rule_is_reported_in_one_answer() {
    let app = spawn_app().await;
    assert_eq!(rejected(&app, &json!({})).await, ["/channel", "/name"]);
    let body = json!({
        "name": "timers",
        "timeIntervalToRepeatLastMessageWhenNoInput": 61,
        "timeToHangUpCallWhenNoInput": 0,
        "intentHighConfidenceScore": 101,
        "botWaitingTime": 601,
        "wordsThatTriggerBotToWait": ["ok", " "],
        "channel": {}
    });
    assert_eq!(
        rejected(&app, &body).await,
        [
            "/botWaitingTime",
            "/channel/channelType",
            "/channel/infoId",
            "/channel/voiceChannelId",
            "/intentHighConfidenceScore",
            "/timeIntervalToRepeatLastMessageWhenNoInput",
            "/timeToHangUpCallWhenNoInput",
            "/wordsThatTriggerBotToWait/1"
        ]
    );
}

#[tokio::test]
async fn catalog_and_channel_references_are_checked() {
    let app = spawn_app().await;
    let mut wrong_language = bot_body("voices");
    wrong_language["voiceNameId"] = json!("en-US-female-1");
    assert_eq!(rejected(&app, &wrong_language).await, ["/voiceNameId"]);
    let mut no_language = bot_body("voices");
    no_language.as_object_mut().unwrap().remove("languageId");
    assert_eq!(rejected(&app, &no_language).await, ["/languageId"]);
    let mut unknown = bot_body("refs");
    unknown["engineId"] = json!("00000000-0000-0000-0000-0000000000ee");
    unknown["voiceNameId"] = json!("robot");
    unknown["channel"]["infoId"] = json!(SITE_B_TELEPHONY);
    unknown["channel"]["channelType"] = json!("telephony");
    assert_eq!(rejected(&app, &unknown).await, ["/channel/infoId", "/engineId", "/voiceNameId"]);
    // A voice id no row can have (PostgreSQL refuses NUL in text) is unknown, not a 500.
    let mut nul = bot_body("nul");
    nul["voiceNameId"] = json!("zh-CN-male-1\u{0}");
    assert_eq!(rejected(&app, &nul).await, ["/voiceNameId"]);
    let mut bad_language = bot_body("lang");
    bad_language["languageId"] = json!("fr");
    assert_eq!(rejected(&app, &bad_language).await, ["/languageId"]);
    let mut minimal = bot_body("minimal");
    for key in ["engineId", "languageId", "voiceNameId"] {
        minimal.as_object_mut().unwrap().remove(key);
    }
    let bot = create(&app, &minimal).await;
    assert!(bot.get("engine").is_none() && bot.get("language").is_none());
}

#[tokio::test]
async fn delete_removes_the_bot_and_its_channel_and_frees_the_configuration() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let channels_before = app.count_rows("voicebot_channel_instances").await;
    let demo: Value = app.get(&format!("{BOTS}/{DEMO_BOT}"), &token).await.json().await.unwrap();
    assert_problem(
        app.delete(&format!("{CHANNELS}/{}", demo["channelId"].as_str().unwrap()), &token).await,
        409,
        409002,
    )
    .await;
    assert_eq!(app.delete(&format!("{BOTS}/{DEMO_BOT}"), &token).await.status(), 204);
    assert_problem(app.get(&format!("{BOTS}/{DEMO_BOT}"), &token).await, 404, 404001).await;
    assert_eq!(app.count_rows("voicebot_channel_instances").await, channels_before - 1);
    // The demo's spare bot still uses the number; deleted too, it frees it.
    assert_problem(app.delete(&format!("{TELEPHONY}/{DEMO_TELEPHONY}"), &token).await, 409, 409002).await;
    assert_eq!(app.delete(&format!("{BOTS}/0192f0c4-0000-7000-8000-0000000b0b02"), &token).await.status(), 204);
    assert_eq!(app.delete(&format!("{TELEPHONY}/{DEMO_TELEPHONY}"), &token).await.status(), 204);
}

#[tokio::test]
async fn another_sites_voicebot_is_404_and_permission_is_required() {
    let app = spawn_app().await;
    let other = app.admin_b();
    let path = format!("{BOTS}/{DEMO_BOT}");
    assert_problem(app.get(&path, &other).await, 404, 404001).await;
    let mut body = bot_body("hijack");
    body["channel"] = json!({"voiceChannelId": VOICE_CHANNEL, "infoId": SITE_B_TELEPHONY, "channelType": "telephony"});
    assert_problem(app.put(&path, &other, &body).await, 404, 404001).await;
    assert_problem(app.delete(&path, &other).await, 404, 404001).await;
    let list: Value = app.get(BOTS, &other).await.json().await.unwrap();
    assert_eq!(list, json!([]));
    let forms_only = app.token_with(SITE_A, ADMIN_A, &[Permission::ManageSecureForm]);
    assert_problem(app.get(BOTS, &forms_only).await, 403, 403001).await;
    assert_problem(app.get(TELEPHONY, &forms_only).await, 403, 403001).await;
    assert_problem(app.post(CHANNELS, &forms_only, &json!({})).await, 403, 403001).await;
}

#[tokio::test]
async fn every_list_takes_a_fixed_number_of_queries() {
    let app = &spawn_app().await;
    let token = app.admin_a();
    let token = token.as_str();
    let bot = |i: usize| {
        let mut body = bot_body(&format!("bot {i}"));
        if i.is_multiple_of(2) {
            body["channel"] = json!({"voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0002", "infoId": DEMO_TELEPHONY, "channelType": "telephony"});
            body["languageId"] = json!("zh-TW");
            body["voiceNameId"] = json!("zh-TW-female-1");
        }
        body
    };
    let configurations = |i: usize| async move {
        assert_eq!(app.post(SIP, token, &sip_body()).await.status(), 201);
        let number = json!({"phoneNumber": format!("+44207946100{i}"), "phoneNumberCountry": "GB"});
        assert_eq!(app.post(TELEPHONY, token, &number).await.status(), 201);
    };
    let lists = [
        format!("{BOTS}?include=voicebotChannelInstance"),
        BOTS.to_owned(),
        format!("{CHANNELS}?include=info"),
        CHANNELS.to_owned(),
        TELEPHONY.to_owned(),
        SIP.to_owned(),
    ];
    let counts = || async {
        let mut counts = Vec::new();
        for list in &lists {
            app.reset_query_count();
            let response = app.get(list, token).await;
            assert_eq!(response.status(), 200, "{list}");
            let _: Value = response.json().await.unwrap();
            counts.push(app.query_count());
        }
        counts
    };
    // One of each kind first: channels load the configurations of the kinds they use.
    configurations(0).await;
    create(app, &bot(0)).await;
    create(app, &bot(1)).await;
    let before = counts().await;
    for i in 1..4 {
        configurations(i).await;
    }
    for i in 2..8 {
        create(app, &bot(i)).await;
    }
    let list: Value = app.get(BOTS, token).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 10, "8 and the demo's two");
    assert_eq!(before, counts().await, "queries per request for {lists:?}");
    assert!(before.iter().all(|&n| n <= 6), "{before:?}");
}
